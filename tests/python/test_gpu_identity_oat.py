"""One GPU path for oat (marker gpu; the GPU machine runs them with `-m gpu`, docs/python.md):
Python on CuPy/PyTorch CUDA arrays (cuda/oat/device_arrays: adapters over the objects the `cuda`
backends run) equals Python with backend="cuda" on NumPy arrays of the same float32 values. H_int
bit for bit; H_intᵀ and the FBP, whose scatter and fix-up pass add by float atomics in an order
that varies from run to run, bit for bit up to that order: max |a − b| ≤ 1e-5 of the largest value
(the scatter sums filter taps of both signs, so the order alone moved the 12³ adjoint by up to
2.2e-6 of its largest value on an H100; the C++ tests' 12³ cases stay within 1e-6)."""
import numpy as np
import pytest

import tomoraster
from test_gpu import OAT_SMALL, Kind

pytestmark = pytest.mark.gpu
ATOMIC_ORDER = 1e-5


@pytest.fixture(params=["cupy", "torch"])
def kind(request):
    return Kind(request.param)


def atomic_order_difference(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))


def test_oat_model_device_arrays_equal_the_cuda_backend(kind):
    gpu = tomoraster.oat.Model(backend="cuda", **OAT_SMALL)
    rng = np.random.default_rng(31)
    alpha = rng.random(gpu.image_shape).astype(np.float32)
    u = rng.random(gpu.data_shape).astype(np.float32)
    host_fwd = np.asarray(gpu.forward(alpha.astype(np.float64))).astype(np.float32)
    host_adj = np.asarray(gpu.adjoint(u.astype(np.float64))).astype(np.float32)
    dev_fwd = kind.to_numpy(gpu.forward(kind.to_gpu(alpha)))
    dev_adj = kind.to_numpy(gpu.adjoint(kind.to_gpu(u)))
    np.testing.assert_array_equal(dev_fwd, host_fwd)
    assert atomic_order_difference(dev_adj, host_adj) <= ATOMIC_ORDER


def test_oat_fbp_device_arrays_equal_the_cuda_backend(kind):
    model = tomoraster.oat.Model(backend="cpu", **OAT_SMALL)
    fbp = tomoraster.oat.Fbp(backend="cuda", **OAT_SMALL)
    u = np.random.default_rng(32).random(model.data_shape).astype(np.float32)
    host = np.asarray(fbp.reconstruct(u.astype(np.float64), deconvolve=False)).astype(np.float32)
    dev = kind.to_numpy(fbp.reconstruct(kind.to_gpu(u), deconvolve=False))
    assert "deferred" in fbp.backend
    assert atomic_order_difference(dev, host) <= ATOMIC_ORDER


def test_oat_reproducible_transpose_is_the_same_bits_every_call(kind):
    """set={"oat.model.reproducible": True} on cuda keeps the fixed-point gather: the same bits on
    every call, on NumPy and on CUDA arrays, and within the atomic order of the default
    (symmetric, float atomics) transpose."""
    rep = tomoraster.oat.Model(backend="cuda", set={"oat.model.reproducible": True}, **OAT_SMALL)
    default = tomoraster.oat.Model(backend="cuda", **OAT_SMALL)
    assert "fixed-point gather" in rep.backend and "fixed-point gather" not in default.backend
    u = np.random.default_rng(33).random(rep.data_shape).astype(np.float32)
    host = [np.asarray(rep.adjoint(u.astype(np.float64))) for _ in range(3)]
    dev = [kind.to_numpy(rep.adjoint(kind.to_gpu(u))) for _ in range(3)]
    for a in host[1:]:
        np.testing.assert_array_equal(a, host[0])
    for a in dev[1:]:
        np.testing.assert_array_equal(a, dev[0])
    assert atomic_order_difference(dev[0], host[0].astype(np.float32)) <= ATOMIC_ORDER
    assert atomic_order_difference(np.asarray(default.adjoint(u.astype(np.float64))), host[0]) <= ATOMIC_ORDER
