"""safir's GPU arrays run the cuda backend's own kernels (marker gpu; cuda/safir/device_arrays is an
adapter over the backend): Python on CuPy/PyTorch arrays equals Python with backend="cuda" on
NumPy arrays, forward, back and ML-EM (halving too). Bit for bit wherever two NumPy runs of the
backend agree bit for bit; where its float atomics added in another order, within 1e-6."""
import numpy as np
import pytest

import tomoraster
from test_gpu import FRAMEWORKS, Kind, same_as_backend
from test_safir import SAFIR

pytestmark = pytest.mark.gpu


@pytest.fixture(params=FRAMEWORKS)
def kind(request):
    return Kind(request.param)


@pytest.fixture(scope="module")
def inputs():
    ev, _, _ = tomoraster.safir.events(**SAFIR)
    ev = np.ascontiguousarray(ev[:6000])
    shape = tomoraster.safir.Projector(backend="cpu", **SAFIR).image_shape
    rng = np.random.default_rng(41)
    # float32 values, so NumPy's float64 and the GPU's float32 reach the backend as the same floats
    x = rng.random(shape).astype(np.float32)
    v = rng.random(len(ev)).astype(np.float32)
    return ev, x, v


def numpy_runs(ev, x, v):
    """Two runs of the cuda backend from NumPy: (forward, back, mlem 3 iterations, halving) each."""
    runs = []
    for _ in range(2):
        p = tomoraster.safir.Projector(backend="cuda", **SAFIR)
        p.set_events(ev)
        y, b = p.forward(x.astype(np.float64)), p.back(v.astype(np.float64))
        img = tomoraster.safir.mlem(p, ev, iterations=3, halve_events=True, randoms_per_lor=0.01)
        runs.append((y, b, np.asarray(img, dtype=np.float64)))
    return runs


def test_safir_gpu_arrays_equal_the_cuda_backend(kind, inputs):
    ev, x, v = inputs
    (y_a, b_a, f_a), (y_b, b_b, f_b) = numpy_runs(ev, x, v)
    p = tomoraster.safir.Projector(backend="cuda", **SAFIR)
    p.set_events(kind.to_gpu(ev))
    y = p.forward(kind.to_gpu(x))
    b = p.back(kind.to_gpu(v))
    assert kind.is_kind(y) and kind.is_kind(b)
    same_as_backend(kind.to_numpy(y), y_a, y_b)
    same_as_backend(kind.to_numpy(b), b_a, b_b)
    img = tomoraster.safir.mlem(p, kind.to_gpu(ev), iterations=3, halve_events=True, randoms_per_lor=0.01)
    assert kind.is_kind(img)
    same_as_backend(kind.to_numpy(img), f_a, f_b)
