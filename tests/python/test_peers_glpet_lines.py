"""The like-for-like glpet scene the parallelproj comparison runs (bench/peers/parallelproj_glpet.py
--like): glpet_default.toml's scanner and LORs at one line per detector, one sample per voxel and
no attenuation map. On the cpu backend, a coarse grid over the same field of view."""
import pathlib
import sys

import numpy as np

PEERS = pathlib.Path(__file__).resolve().parents[2] / "bench" / "peers"
sys.path.insert(0, str(PEERS))

import parallelproj_glpet as pg  # noqa: E402
from tomoraster import glpet  # noqa: E402

SMALL = dict(voxels=[8, 8, 8], voxel_mm=[8.0, 8.0, 8.0])  # the default scene's 64 mm cube


def test_the_line_scene_has_the_default_scanner_lors_and_no_transmission_samples():
    lines = glpet.Projector(pg.line_scene(), backend="cpu", **SMALL)
    default_r1 = glpet.Projector("glpet_default.toml", backend="cpu", R=1, N=1, **SMALL)
    # The same lines are handed to parallelproj: the default scene's LORs, grid and order.
    e_l, o_l, v_l = lines.lor_endpoints()
    e_d, o_d, v_d = default_r1.lor_endpoints()
    assert lines.lor_count == default_r1.lor_count == 32 ** 4
    np.testing.assert_array_equal(e_l, e_d)
    assert o_l == o_d and v_l == v_d
    x = np.ones(lines.image_shape, np.float32)
    y = lines.forward(x)
    # No attenuation map: nothing is sampled along a line, so K changes nothing, bit for bit...
    np.testing.assert_array_equal(glpet.Projector(pg.line_scene(), backend="cpu", K=1, **SMALL).forward(x), y)
    # ...and every weight is the bare solid angle: the default scene's water cylinder (σ_t 0.0096/mm,
    # radius 26 mm) leaves exp(-0.0096·52) = 0.607 of it at the most, and 1 off the cylinder.
    y_att = default_r1.forward(x)
    seen = y > 0
    assert seen.sum() > 100_000 and np.all(y_att[~seen] == 0)
    kept = y_att[seen] / y[seen]
    assert kept.min() > 0.6 and kept.max() <= 1 + 1e-6
    assert 0.6 < y_att.sum() / y.sum() < 0.75
