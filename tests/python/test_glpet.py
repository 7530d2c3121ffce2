"""glpet's projector from Python: the adjoint identity, agreement between backends, mlem, bad arrays."""
import numpy as np
import pytest

import tomoraster

SMALL = {"glpet.voxels": [8, 8, 8], "glpet.voxel_mm": [4.0, 4.0, 4.0]}


@pytest.fixture(scope="module")
def cpu():
    return tomoraster.glpet.Projector("glpet_small.toml", backend="cpu", set=SMALL)


def test_adjoint_identity(cpu):
    rng = np.random.default_rng(1)
    x = rng.random(cpu.image_shape, dtype=np.float32)
    y = rng.random(cpu.lor_count, dtype=np.float32)
    lhs = float(np.dot(cpu.forward(x).astype(np.float64), y))
    rhs = float(np.dot(x.ravel().astype(np.float64), cpu.back(y).ravel()))
    assert abs(lhs - rhs) <= 1e-5 * abs(lhs)


def test_gl_compute_equals_cpu(cpu):
    gl = tomoraster.glpet.Projector("glpet_small.toml", backend="gl-compute", set=SMALL)
    x = np.random.default_rng(2).random(cpu.image_shape, dtype=np.float32)
    a, b = cpu.forward(x), gl.forward(x)
    assert np.linalg.norm(a - b) <= 1e-4 * np.linalg.norm(a)  # docs/glpet.md §5


def test_mlem_recovers_counts(cpu):
    x_true = np.zeros(cpu.image_shape, dtype=np.float32)
    x_true[3:5, 3:5, 3:5] = 10.0
    y = cpu.forward(x_true)  # noise-free data from the operator: only the algorithm is tested here
    seen = []
    x = tomoraster.glpet.mlem(cpu, y, iterations=20, callback=lambda it, x: seen.append(it))
    assert seen == list(range(1, 21))
    assert abs(cpu.forward(x).sum() - y.sum()) <= 1e-3 * y.sum()
    assert np.unravel_index(np.argmax(x), x.shape) in {(i, j, k) for i in (3, 4) for j in (3, 4) for k in (3, 4)}


def test_bad_arrays_raise_clean_errors(cpu):
    x = np.zeros(cpu.image_shape, dtype=np.float32)
    with pytest.raises(TypeError, match="x: dtype must be float32"):
        cpu.forward(x.astype(np.float64))
    with pytest.raises(ValueError, match="x: shape"):
        cpu.forward(x[:2])
    with pytest.raises(ValueError, match="C-contiguous"):
        cpu.forward(np.asfortranarray(np.random.rand(*cpu.image_shape).astype(np.float32)))
    with pytest.raises(ValueError, match="y: shape"):
        cpu.back(np.zeros(3, dtype=np.float32))


def test_unknown_backend_is_a_value_error():
    with pytest.raises(ValueError):
        tomoraster.glpet.Projector("glpet_small.toml", backend="no-such-backend", set=SMALL)
