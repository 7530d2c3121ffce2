"""strip's GPU arrays run the cuda backend's own kernels (marker gpu; cuda/strip/device_arrays is an
adapter over the backend): Python on CuPy/PyTorch arrays equals Python with backend="cuda" on
NumPy arrays, forward, back, one EM step and ML-EM (ρ'; ρ = ρ'/s within 1e-6, the GPU path
multiplies by 1/s in float). Bit for bit wherever two NumPy runs of the backend agree bit for
bit; where its float atomics added in another order, within 1e-6."""
import numpy as np
import pytest

import tomoraster
from test_gpu import FRAMEWORKS, Kind, rel, same_as_backend
from test_gpu_more import STRIP, strip_events

pytestmark = pytest.mark.gpu


@pytest.fixture(params=FRAMEWORKS)
def kind(request):
    return Kind(request.param)


@pytest.fixture(scope="module")
def inputs():
    ev = strip_events(5000, seed=11)
    shape = tomoraster.strip.Projector(backend="cpu", **STRIP).image_shape
    rng = np.random.default_rng(43)
    # float32 values, so NumPy's float64 and the GPU's float32 reach the backend as the same floats
    x = (0.5 + rng.random(shape)).astype(np.float32)
    w = rng.random(len(ev)).astype(np.float32)
    return ev, x, w


def numpy_runs(ev, x, w):
    """Two runs of the cuda backend from NumPy: (forward, back, one EM step, ML-EM ρ and ρ')."""
    runs = []
    for _ in range(2):
        p = tomoraster.strip.Projector(backend="cuda", **STRIP)
        y, b = p.forward(x.astype(np.float64), ev), p.back(w.astype(np.float64), ev)
        p.set_events(ev)
        step = p.iterate(x.astype(np.float64))
        rho, rho_prime = tomoraster.strip.mlem(p, ev, iterations=3, return_rho_prime=True)
        runs.append((y, b, step, rho, rho_prime))
    return runs


def test_strip_gpu_arrays_equal_the_cuda_backend(kind, inputs):
    ev, x, w = inputs
    ref_a, ref_b = numpy_runs(ev, x, w)
    p = tomoraster.strip.Projector(backend="cuda", **STRIP)
    ev_d = kind.to_gpu(ev)
    y = p.forward(kind.to_gpu(x), ev_d)
    b = p.back(kind.to_gpu(w), ev_d)
    assert kind.is_kind(y) and kind.is_kind(b)
    same_as_backend(kind.to_numpy(y), ref_a[0], ref_b[0])
    same_as_backend(kind.to_numpy(b), ref_a[1], ref_b[1])
    p.set_events(ev_d)
    step = p.iterate(kind.to_gpu(x))
    same_as_backend(kind.to_numpy(step), ref_a[2], ref_b[2])
    rho, rho_prime = tomoraster.strip.mlem(p, ev_d, iterations=3, return_rho_prime=True)
    assert kind.is_kind(rho) and kind.is_kind(rho_prime)
    same_as_backend(kind.to_numpy(rho_prime), ref_a[4], ref_b[4])
    assert rel(np.asarray(kind.to_numpy(rho), dtype=np.float64), ref_a[3]) <= 1e-6
