"""glpet.Projector.lor_endpoints(): the LORs as lines for another projector (parallelproj), checked
against the scene's geometry (glpet_small: two 16×16 modules of 4 mm pitch at z = ∓80 mm, a 24³
grid of 2.5 mm) and against the projector itself."""
import numpy as np
import pytest

from tomoraster import glpet

PITCH, HALF, Z = 4.0, 32.0, 80.0  # glpet_small's modules: pitch, half width, |z| of the planes


@pytest.fixture(scope="module")
def small():
    p = glpet.Projector("glpet_small.toml", backend="cpu")
    return p, p.lor_endpoints()


def test_count_shape_and_grid(small):
    p, (ends, origin, voxel) = small
    assert ends.shape == (p.lor_count, 2, 3) == (16 ** 4, 2, 3)
    assert ends.dtype == np.float64
    assert origin == (-28.75, -28.75, -28.75)  # the centre of voxel (0, 0, 0): −(24 − 1)/2 · 2.5
    assert voxel == (2.5, 2.5, 2.5)


def test_end_points_are_detector_centres_on_the_module_planes(small):
    _, (ends, _, _) = small
    np.testing.assert_array_equal(ends[:, 0, 2], -Z)  # the pair's first module
    np.testing.assert_array_equal(ends[:, 1, 2], Z)
    xy = ends[:, :, :2]
    assert np.all(np.abs(xy) < HALF)
    cell = (xy + HALF) / PITCH - 0.5  # detector index: whole numbers at the centres
    np.testing.assert_allclose(cell, np.rint(cell), atol=1e-12)
    # every detector pair once
    assert len(np.unique(np.rint(cell).reshape(len(ends), 4), axis=0)) == len(ends)


def test_order_is_the_lor_vectors_order(small):
    """LOR k of the flat vector joins detector (p, q) of module 0 and (r, s) of module 1, where
    the CLI's counts layout [pair, p, q, r, s] puts it (Projector.lors reorders that layout)."""
    p, (ends, _, _) = small
    n = 16
    pi, qi, ri, si = np.meshgrid(*(np.arange(n),) * 4, indexing="ij")
    code = (((pi * n + qi) * n + ri) * n + si).astype(np.float64)[None]  # (1, p, q, r, s)
    k = np.asarray(p.lors(code)).astype(np.int64)
    pq = np.stack([k // n ** 3, (k // n ** 2) % n], axis=1)
    rs = np.stack([(k // n) % n, k % n], axis=1)
    centre = lambda ij: -HALF + (ij + 0.5) * PITCH  # noqa: E731
    np.testing.assert_array_equal(ends[:, 0, :2], centre(pq))
    np.testing.assert_array_equal(ends[:, 1, :2], centre(rs))


def distance_to_lines(ends, point):
    a, b = ends[:, 0], ends[:, 1]
    d = (b - a) / np.linalg.norm(b - a, axis=1)[:, None]
    w = point - a
    return np.linalg.norm(w - (w @ np.eye(3) * d).sum(1)[:, None] * d, axis=1)


def test_point_source_lands_on_the_lines_through_it(small):
    """A point source (one voxel, its centre the sample): every LOR our forward projection
    reaches has its detector-centre line within a detector's half diagonal (2√2 mm) of the
    point, the closest line is reached, and the largest value sits on a line within half a pitch."""
    p, (ends, origin, voxel) = small
    i, j, k = 14, 10, 12
    img = np.zeros(p.image_shape, np.float32)
    img[k, j, i] = 1
    y = np.asarray(p.forward(img))
    point = np.array(origin) + np.array([i, j, k]) * np.array(voxel)
    dist = distance_to_lines(ends, point)
    hit = y > 0
    assert hit.sum() > 16
    assert dist[hit].max() <= 2 * np.sqrt(2) + 1e-6
    assert y[np.argmin(dist)] > 0
    assert dist[np.argmax(y)] <= PITCH / 2
    # and a line far from the point gets nothing
    assert not np.any(hit & (dist > 3.0))


def test_ring_scene_end_points_on_their_modules():
    """The ring scene (12 modules at 60 mm): every end point sits at the modules' radius from the
    axis once projected on the module's normal, i.e. on the module planes, within the 32 mm axial
    extent."""
    p = glpet.Projector("glpet_ring.toml", backend="cpu", voxels=[16, 16, 8], voxel_mm=[4.0, 4.0, 3.0])
    ends, _, _ = p.lor_endpoints()
    assert ends.shape == (p.lor_count, 2, 3)
    r = np.linalg.norm(ends[..., :2], axis=-1)
    # a point of a flat module at distance 60 mm: 60 ≤ r ≤ 60 / cos 15°
    assert r.min() >= 60.0 - 1e-9 and r.max() <= 60.0 / np.cos(np.pi / 12) + 1e-9
    assert np.all(np.abs(ends[..., 2]) < 16.0)
