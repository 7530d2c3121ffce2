"""glpet.mlem from Python reconstructs the field of view the CLI's ML-EM does: voxels below the
sensitivity cut or outside the scanner's cylinder stay 0, and counts that sum to nothing are
refused with the CLI's words."""
import subprocess

import numpy as np
import pytest

import tomoraster

# 8 modules of 8 × 4 detectors (1 mm × 2 mm) at 10 mm, 12 × 12 × 4 voxels of 2 mm: voxel centres
# reach 11 mm transaxially, beyond the inscribed circle (10 mm) but inside the octagon (10.8 mm).
RING = {
    "problem": "glpet",
    "glpet": {
        "voxels": [12, 12, 4],
        "voxel_mm": [2.0, 2.0, 2.0],
        "R": 1,
        "K": 16,
        "iterations": 4,
        "ring": {"modules": 8, "radius_mm": 10.0, "detectors": [8, 4], "pitch_mm": [1.0, 2.0], "span": 1},
        "activity": [{"type": "sphere", "centre": [0.0, 0.0, 0.0], "radius": 5.0, "value": 1.0}],
    },
}


def outside_cylinder(shape, voxel_mm=2.0, radius=10.0, half_z=4.0):
    """(z, y, x) mask of voxel centres outside the ring's cylinder (grid centred on the origin)."""
    z, y, x = (np.arange(n) - (n - 1) / 2 for n in shape)
    zz, yy, xx = np.meshgrid(z * voxel_mm, y * voxel_mm, x * voxel_mm, indexing="ij")
    return (xx ** 2 + yy ** 2 > radius ** 2) | (np.abs(zz) > half_z)


def test_voxels_outside_the_scanners_cylinder_stay_zero():
    op = tomoraster.glpet.Projector(RING, backend="cpu")
    y = op.forward(np.ones(op.image_shape, dtype=np.float32))  # activity everywhere, also outside
    s = op.sensitivity()
    outside = outside_cylinder(op.image_shape)
    above_cut = s >= 0.01 * s.max()
    assert (outside & above_cut).sum() > 0, "the scene must have voxels outside the circle above the cut"

    x = tomoraster.glpet.mlem(op, y, iterations=4)
    assert np.count_nonzero(x[outside]) == 0
    assert np.count_nonzero(x[~outside & above_cut]) == np.count_nonzero(~outside & above_cut)

    # glpet.fov_mask = false: the same voxels are reconstructed (the mask made the difference).
    off = tomoraster.glpet.Projector(RING, backend="cpu", set={"glpet.fov_mask": False})
    x_off = tomoraster.glpet.mlem(off, y, iterations=4)
    assert np.count_nonzero(x_off[outside & above_cut]) == (outside & above_cut).sum()


def test_voxels_below_the_sensitivity_cut_stay_zero():
    op = tomoraster.glpet.Projector(RING, backend="cpu", set={"glpet.fov_mask": False,
                                                              "glpet.sensitivity_threshold": 0.5})
    y = op.forward(np.ones(op.image_shape, dtype=np.float32))
    s = op.sensitivity()
    below = (s > 0) & (s < 0.5 * s.max())
    assert below.sum() > 0
    x = tomoraster.glpet.mlem(op, y, iterations=2)
    assert np.count_nonzero(x[below]) == 0
    assert np.count_nonzero(x[s >= 0.5 * s.max()]) == np.count_nonzero(s >= 0.5 * s.max())
    # a start image is cut the same way
    x0 = tomoraster.glpet.mlem(op, y, iterations=0, x0=np.ones(op.image_shape, dtype=np.float32))
    assert np.count_nonzero(x0[below]) == 0


def test_all_zero_counts_are_refused_with_the_clis_words(cli, tmp_path):
    op = tomoraster.glpet.Projector(RING, backend="cpu")
    with pytest.raises(ValueError) as e:
        tomoraster.glpet.mlem(op, np.zeros(op.lor_count, dtype=np.float32), iterations=2)
    assert str(e.value) == "glpet.mlem: y holds no counts (every LOR is 0): nothing to reconstruct"

    # The CLI refuses a counts file of zeros with the same words after the file's name.
    counts = tmp_path / "zeros.npy"
    pairs, n_a, n_t = op._op.pair_shape
    np.save(counts, np.zeros((pairs, n_a, n_t, n_a, n_t), dtype=np.float32))
    scene = {"problem": "glpet", "glpet": {**RING["glpet"], "data": {"counts": str(counts)}}}
    scene["glpet"].pop("activity")
    path = tmp_path / "scene.toml"
    path.write_text(tomoraster._scene.to_toml(scene))
    r = subprocess.run([cli, "--no-progress", "run", str(path), "-o", str(tmp_path / "out"), "--backend", "cpu"],
                       capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().endswith(
        "(glpet.data.counts) holds no counts (every LOR is 0): nothing to reconstruct"), r.stderr
