"""fdk's Python GPU path runs the CLI's cuda kernels (marker gpu): CuPy and PyTorch arrays go
through cuda/fdk/device_arrays, thin adapters over the registered cuda back-projector and filter,
and give the same bits as backend="cuda" on NumPy arrays (the backend the CLI runs)."""
import numpy as np
import pytest

import tomoraster
from test_gpu import Kind
from test_fdk import circular_geometry, sphere_stack

pytestmark = pytest.mark.gpu


@pytest.fixture(params=["cupy", "torch"])
def kind(request):
    return Kind(request.param)


@pytest.mark.parametrize("interpolation", ["exact", "hardware"])
def test_backprojection_is_the_cuda_backend_bit_for_bit(kind, interpolation):
    rng = np.random.default_rng(21)
    mats = circular_geometry(40)  # more than one launch of 32 projections
    proj = rng.random((40, 40, 48), dtype=np.float32)
    bp = tomoraster.fdk.Backprojector([16, 14, 12], [1.5] * 3, backend="cuda", interpolation=interpolation)
    host = bp.backproject(proj, mats)
    dev = kind.to_numpy(bp.backproject(kind.to_gpu(proj), mats))
    assert np.abs(host).sum() > 0
    assert dev.dtype == host.dtype and np.array_equal(dev, host)


def test_fdk_is_the_cuda_filter_and_backend_bit_for_bit(kind):
    mats = circular_geometry(40, pixel=4.0)
    stack = sphere_stack(mats)
    args = dict(voxels=[20] * 3, voxel_mm=[3.0] * 3, backend="cuda", filter_backend="cuda", chunk=12)
    host = tomoraster.fdk.fdk(stack, mats, **args)  # NumPy chunks uploaded, then as below
    dev = kind.to_numpy(tomoraster.fdk.fdk(kind.to_gpu(stack), mats, **args))  # read where it lies
    assert np.abs(host).sum() > 0
    assert np.array_equal(dev, host)
