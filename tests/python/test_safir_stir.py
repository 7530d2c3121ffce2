"""STIR's SAFIR point source (data/stir_point_5, README there): safir reads STIR's .clm.safir and
crystal map as they are, and OSEM and MAP-RDP put the point where the lines meet, from the CLI
and from Python, on cpu and gl-compute."""
import pathlib
import subprocess

import numpy as np
import pytest

import tomoraster
from tomoraster._scene import to_toml

DATA = pathlib.Path(__file__).resolve().parent / "data" / "stir_point_5"
VOXEL_MM = 0.7
# 24³ voxels of 0.7 mm around the centre of the 91-ring, 180-crystal scanner (the default scene's)
SAFIR = {"events_file": str(DATA / "point_5.clm.safir"), "crystal_map": str(DATA / "crystal_map_front.txt"),
         "image": [24, 24, 24], "voxel_mm": VOXEL_MM, "iterations": 4, "threads": 1}
OSEM = {"algorithm": "osem", "subsets": 4}
MAP = {"algorithm": "map-rdp", "subsets": 4, "prior": {"beta": 0.02}}


def lines_meet(radius_offset_mm=0.0):
    """The point closest to the prompt events' lines, read here with NumPy from the file (8-byte
    records after a 32-byte header: ring a, ring b (a byte each), detector a, detector b (16 bits
    each); bit 63 a time mark, bit 62 a delayed event) and the crystal map; each crystal moved
    radially by radius_offset_mm. Least squares over the half of the lines nearest the point, four passes."""
    r = np.fromfile(DATA / "point_5.clm.safir", dtype="<u8", offset=32)
    r = r[((r >> 63) & 1) == 0]
    r = r[((r >> 62) & 1) == 0]
    ra, rb, da, db = (r & 0xFF), ((r >> 8) & 0xFF), ((r >> 16) & 0xFFFF), ((r >> 32) & 0xFFFF)
    m = np.loadtxt(DATA / "crystal_map_front.txt", comments="#")
    pos = np.zeros((91, 180, 3))
    pos[m[:, 0].astype(int), m[:, 1].astype(int)] = m[:, 2:5]
    rad = np.hypot(pos[..., 0], pos[..., 1])[..., None]
    pos[..., :2] *= (rad + radius_offset_mm) / rad
    a, b = pos[ra, da], pos[rb, db]
    d = (b - a) / np.linalg.norm(b - a, axis=1)[:, None]

    def solve(a, d):
        p = np.eye(3)[None] - d[:, :, None] * d[:, None, :]
        return np.linalg.solve(p.sum(0), (p @ a[:, :, None]).sum(0)[:, 0])
    p = solve(a, d)
    for _ in range(4):
        dist = np.linalg.norm(np.cross(p - a, d), axis=1)
        keep = dist < np.median(dist)
        p = solve(a[keep], d[keep])
    return p


def centroid_mm(image):
    """(x, y, z) mm of the centroid of the voxels at or above half the maximum; voxel centres
    at (i − 11.5)·0.7 mm."""
    w = np.where(image >= 0.5 * image.max(), image, 0.0)
    zz, yy, xx = np.indices(image.shape)
    idx = np.array([(w * xx).sum(), (w * yy).sum(), (w * zz).sum()]) / w.sum()
    return (idx - (np.array(image.shape[::-1]) - 1) / 2) * VOXEL_MM


@pytest.fixture(scope="module")
def runs(cli, tmp_path_factory):
    """The CLI's images: OSEM and MAP-RDP on cpu, OSEM on gl-compute, and OSEM with the crystals
    5 mm deeper (radius 68 mm, STIR's average depth of interaction; no crystal map then)."""
    out = {}
    for name, backend, keys in (("osem", "cpu", OSEM), ("map", "cpu", MAP), ("osem_gl", "gl-compute", OSEM),
                                ("osem_deep", "cpu", {**OSEM, "radius_mm": 68.0, "crystal_map": ""})):
        d = tmp_path_factory.mktemp(f"stir_{name}")
        scene = d / "scene.toml"
        scene.write_text(to_toml({"problem": "safir", "safir": {**SAFIR, **keys}}))
        subprocess.run([cli, "-q", "run", str(scene), "--backend", backend, "-o", str(d / "out")], check=True,
                       stdout=subprocess.DEVNULL)
        out[name] = tomoraster.read_nifti(str(d / "out" / "image.nii"))[0].reshape(24, 24, 24)
    return out


def test_the_reader_sees_the_lines_meet_at_the_point():
    front = lines_meet()
    deep = lines_meet(5.0)
    np.testing.assert_allclose(front, [4.63, 0.0, 0.0], atol=0.02)  # the crystals' front faces
    np.testing.assert_allclose(deep, [4.99, 0.0, 0.0], atol=0.02)   # STIR's lines, 5 mm deep
    ev, t, delayed = tomoraster.safir.events({"problem": "safir", "safir": SAFIR})
    assert ev.shape == (35844, 2) and delayed == 43 and t.shape == (35844,)


@pytest.mark.parametrize("name", ["osem", "map", "osem_gl"])
def test_the_point_is_where_the_lines_meet(runs, name):
    c = centroid_mm(runs[name])
    # within a fifth of a voxel of the lines' point between the front faces (4.63, 0, 0) mm
    assert np.all(np.abs(c - lines_meet()) < 0.2 * VOXEL_MM), c
    assert np.unravel_index(np.argmax(runs[name]), runs[name].shape) == (12, 12, 18)  # voxel (x 18, y 12, z 12)


def test_with_stirs_depth_the_point_is_at_5_mm(runs):
    c = centroid_mm(runs["osem_deep"])
    assert np.all(np.abs(c - [5.0, 0.0, 0.0]) < 0.2 * VOXEL_MM), c


def test_map_smooths_and_gl_compute_equals_cpu(runs):
    assert runs["map"].max() < 0.95 * runs["osem"].max()
    np.testing.assert_allclose(runs["osem_gl"], runs["osem"], atol=1e-4 * float(runs["osem"].max()))


@pytest.mark.parametrize("name, keys", [("osem", OSEM), ("map", MAP)])
def test_python_equals_the_cli(runs, name, keys):
    scene = {"problem": "safir", "safir": SAFIR}
    ev, _, delayed = tomoraster.safir.events(scene)
    p = tomoraster.safir.Projector(scene, backend="cpu")
    img = tomoraster.safir.reconstruct(p, ev, delayed=delayed, **keys)
    np.testing.assert_allclose(img, runs[name], rtol=1e-5, atol=1e-6 * float(runs[name].max()))
