"""glpet's Python GPU path runs the CLI's cuda kernels (marker gpu): CuPy and PyTorch arrays go
through cuda/glpet/device_arrays, a thin adapter over the registered cuda projector. The
back-projection (a gather) gives the same bits as backend="cuda" on NumPy arrays; the forward
projection adds into LORs with float atomics, whose order the GPU does not fix, so it is held to
the rounding of that order (1e-6 relative L2) instead."""
import numpy as np
import pytest

import tomoraster
from test_gpu import Kind

pytestmark = pytest.mark.gpu
SMALL = {"glpet.voxels": [8, 8, 8], "glpet.voxel_mm": [4.0, 4.0, 4.0]}


@pytest.fixture(params=["cupy", "torch"])
def kind(request):
    return Kind(request.param)


@pytest.fixture(scope="module")
def cuda_projector():
    return tomoraster.glpet.Projector("glpet_small.toml", backend="cuda", set=SMALL)


def test_back_is_the_cuda_backend_bit_for_bit(kind, cuda_projector):
    y = np.random.default_rng(31).random(cuda_projector.lor_count, dtype=np.float32)
    host = cuda_projector.back(y)
    dev = kind.to_numpy(cuda_projector.back(kind.to_gpu(y)))
    assert np.abs(host).sum() > 0
    assert dev.dtype == host.dtype and np.array_equal(dev, host)


def test_forward_is_the_cuda_backend_up_to_atomic_order(kind, cuda_projector):
    x = np.random.default_rng(32).random(cuda_projector.image_shape, dtype=np.float32)
    host = cuda_projector.forward(x)
    dev = kind.to_numpy(cuda_projector.forward(kind.to_gpu(x)))
    assert np.abs(host).sum() > 0
    assert np.linalg.norm(dev - host) <= 1e-6 * np.linalg.norm(host)
