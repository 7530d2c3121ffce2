"""fdk's back-projector on a projection stack made with NumPy: against a NumPy implementation of
RabbitCT's update rule (an independent reference), and between backends."""
import numpy as np
import pytest

import tomoraster


def circular_geometry(n, sid=400.0, sdd=800.0, pixel=1.0, cols=48, rows=40):
    """(n, 3, 4) matrices of a circular cone-beam orbit: world (mm) → (u·w, v·w, w)."""
    mats = []
    for a in np.linspace(0, 2 * np.pi, n, endpoint=False):
        c, s = np.cos(a), np.sin(a)
        R = np.array([[-s, c, 0.0], [0.0, 0.0, 1.0], [c, s, 0.0]])  # detector u, v, and the ray axis
        t = np.array([0.0, 0.0, sid])
        K = np.array([[sdd / pixel, 0, (cols - 1) / 2], [0, sdd / pixel, (rows - 1) / 2], [0, 0, 1]])
        mats.append(K @ np.hstack([R, t[:, None]]))
    return np.array(mats)


def numpy_backprojection(proj, mats, voxels, voxel, origin):
    nz, ny, nx = voxels[2], voxels[1], voxels[0]
    z, y, x = np.meshgrid(*(origin[a] + voxel[a] * np.arange(voxels[a]) for a in (2, 1, 0)), indexing="ij")
    pts = np.stack([x, y, z, np.ones_like(x)], axis=-1)
    vol = np.zeros((nz, ny, nx))
    rows, cols = proj.shape[1:]
    for img, m in zip(proj.astype(np.float64), mats):
        h = pts @ m.T
        w = h[..., 2]
        u, v = h[..., 0] / w, h[..., 1] / w
        u0, v0 = np.floor(u).astype(int), np.floor(v).astype(int)
        fu, fv = u - u0, v - v0
        def px(i, j):
            ok = (i >= 0) & (i < cols) & (j >= 0) & (j < rows)
            return np.where(ok, img[np.clip(j, 0, rows - 1), np.clip(i, 0, cols - 1)], 0.0)
        val = (px(u0, v0) * (1 - fu) * (1 - fv) + px(u0 + 1, v0) * fu * (1 - fv) +
               px(u0, v0 + 1) * (1 - fu) * fv + px(u0 + 1, v0 + 1) * fu * fv)
        vol += val / (w * w)
    return vol


@pytest.fixture(scope="module")
def stack():
    rng = np.random.default_rng(3)
    mats = circular_geometry(12)
    proj = rng.random((12, 40, 48), dtype=np.float32)
    return proj, mats


def test_cpu_equals_a_numpy_reference(stack):
    proj, mats = stack
    voxels, voxel = [10, 9, 8], [2.0, 2.0, 2.0]
    bp = tomoraster.fdk.Backprojector(voxels, voxel, backend="cpu", interpolation="exact")
    vol = bp.backproject(proj, mats)
    assert vol.shape == (8, 9, 10) and vol.dtype == np.float32
    origin = [-(n - 1) / 2 * d for n, d in zip(voxels, voxel)]
    ref = numpy_backprojection(proj, mats, voxels, voxel, origin)
    assert np.linalg.norm(vol - ref) <= 1e-5 * np.linalg.norm(ref)


def test_gl_compute_exact_equals_cpu(stack):
    proj, mats = stack
    a = tomoraster.fdk.backproject(proj, mats, [16, 16, 12], [1.5] * 3, backend="cpu")
    b = tomoraster.fdk.backproject(proj, mats, [16, 16, 12], [1.5] * 3, backend="gl-compute", interpolation="exact")
    assert np.linalg.norm(a - b) <= 1e-5 * np.linalg.norm(a)


def test_bad_stacks_raise(stack):
    proj, mats = stack
    bp = tomoraster.fdk.Backprojector([4, 4, 4], [1.0] * 3, backend="cpu")
    with pytest.raises(ValueError, match="matrices: shape"):
        bp.backproject(proj, mats[:3])
    with pytest.raises(TypeError, match="matrices: dtype must be float64"):
        bp.backproject(proj, mats.astype(np.float32))
    with pytest.raises(ValueError, match="projections"):
        bp.backproject(proj[0], mats)
