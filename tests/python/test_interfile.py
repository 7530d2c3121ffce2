"""Interfile from Python: write_interfile / read_interfile round trips checked against the files
themselves (the header's keys parsed here, the data read with NumPy), a run writing both
formats, and refusals with the C++ reader's words."""
import re

import numpy as np
import pytest

import tomoraster
from tomoraster import _core


def keys_of(text):
    return dict(m.groups() for m in re.finditer(r"^([^;:\n]*?)[ \t]*:=[ \t]*(.*?)[ \t\r]*$", text, re.M))


def test_round_trip_and_the_files_as_numpy_reads_them(tmp_path):
    z, y, x = np.mgrid[0:3, 0:4, 0:5]
    image = (x + 10 * y + 100 * z).astype(np.float32) - 0.5
    _core.write_interfile(str(tmp_path / "act.hv"), image, [2.0, 2.5, 3.0], [-4.0, -3.75, 1.0], "activity", "a.u.", 0.0)
    keys = keys_of((tmp_path / "act.hv").read_text())
    assert keys["name of data file"] == "act.v"
    assert keys["!matrix size [1]"] == "5" and keys["!matrix size [3]"] == "3"
    assert keys["scaling factor (mm/pixel) [2]"] == "2.5"
    assert keys["first pixel offset (mm) [2]"] == "-3.75"
    assert keys["imagedata byte order"] == "LITTLEENDIAN" and keys["!number format"] == "float"
    raw = np.fromfile(tmp_path / "act.v", dtype="<f4").reshape(3, 4, 5)
    np.testing.assert_array_equal(raw, image)
    array, voxel_mm, origin_mm, frame_s = _core.read_interfile(str(tmp_path / "act.hv"))
    np.testing.assert_array_equal(array, image)
    assert voxel_mm == [2.0, 2.5, 3.0] and origin_mm == [-4.0, -3.75, 1.0] and frame_s == 0.0


def test_series_and_a_centred_grid(tmp_path):
    frames = np.arange(2 * 2 * 3 * 4, dtype=np.float32).reshape(2, 2, 3, 4)
    _core.write_interfile(str(tmp_path / "dyn.hv"), frames, [1.0, 1.0, 2.0], [], "", "", 2.5)
    array, voxel_mm, origin_mm, frame_s = _core.read_interfile(str(tmp_path / "dyn.hv"))
    assert array.shape == (2, 2, 3, 4) and frame_s == 2.5
    np.testing.assert_array_equal(array, frames)
    assert origin_mm == [-1.5, -1.0, -1.0]  # (n - 1)/2 voxels before the axis


def test_a_run_writes_interfile_beside_nifti(tmp_path):
    report = tomoraster.run("demo.toml", backend="cpu", out=str(tmp_path / "run"), load=False,
                            set={"demo.size": [6, 6, 6], "output_format": ["nifti", "interfile"]})
    assert {"phantom.nii", "phantom.hv", "phantom.v"} <= set(report["outputs"])
    nifti = tomoraster.read_nifti(str(tmp_path / "run" / "phantom.nii"))
    inter = _core.read_interfile(str(tmp_path / "run" / "phantom.hv"))
    np.testing.assert_array_equal(inter[0], nifti[0])
    np.testing.assert_allclose(inter[2], nifti[2], atol=1e-6)


def test_refusals(tmp_path):
    with pytest.raises(ValueError, match=r"array: expected \(z, y, x\) or \(t, z, y, x\), got shape \(4, 4\)"):
        _core.write_interfile(str(tmp_path / "a.hv"), np.zeros((4, 4), np.float32), [1.0, 1.0, 1.0], [], "", "", 0.0)
    with pytest.raises(ValueError, match="voxel_mm: values must be finite and > 0"):
        _core.write_interfile(str(tmp_path / "a.hv"), np.zeros((2, 2, 2), np.float32), [1.0, 0.0, 1.0], [], "", "", 0.0)
    (tmp_path / "b.hv").write_text("name of data file := b.v\n")
    with pytest.raises(ValueError, match=r"b.hv': line 1 is 'name of data file := b.v'; an Interfile header starts"):
        _core.read_interfile(str(tmp_path / "b.hv"))
    (tmp_path / "c.hv").write_text("!INTERFILE :=\nname of data file := c.v\n!number format := float\n"
                                   "!matrix size [1] := 4\n!matrix size [2] := 4\n!matrix size [3] := 4\n")
    (tmp_path / "c.v").write_bytes(b"\0" * 12)
    with pytest.raises(ValueError, match=r"holds 12 bytes, the header asks for 256"):
        _core.read_interfile(str(tmp_path / "c.hv"))
