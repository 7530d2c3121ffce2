"""The package itself: import, version, info() as data, scenes from dicts, run() against the CLI."""
import json
import subprocess

import numpy as np
import pytest

import tomoraster
from tomoraster._scene import to_toml

TINY_STRIP = {
    "problem": "strip",
    "backend": "cpu",
    "strip": {"events": 20000, "iterations": 2},
}


def test_version_and_info():
    assert tomoraster.__version__ == "0.1.0"
    info = tomoraster.info()
    assert set(info["problems"]) >= {"glpet", "fdk", "strip"}
    assert info["problems"]["glpet"]["backends"]["cpu"]["available"] is True


def test_dict_to_toml_round_trip_shapes():
    text = to_toml({"problem": "glpet", "glpet": {"voxels": np.array([8, 8, 8]), "R": 2,
                                                  "modules": [{"centre": [0.0, 0.0, -40.0]}, {"centre": [0, 0, 40]}]}})
    assert 'problem = "glpet"' in text and "[glpet]" in text and text.count("[[glpet.modules]]") == 2
    assert "voxels = [8, 8, 8]" in text
    with pytest.raises(ValueError):
        to_toml({"x": float("nan")})


def test_run_returns_the_report_and_volumes_and_equals_the_cli(tmp_path, cli):
    scene = tmp_path / "tiny.toml"
    scene.write_text(to_toml(TINY_STRIP))
    rep = tomoraster.run(str(scene), out=str(tmp_path / "py"))
    assert rep["problem"] == "strip" and rep["backend"] == "cpu"
    assert rep["volumes"], "run() should load the NIfTI outputs"
    subprocess.run([cli, "-q", "run", str(scene), "-o", str(tmp_path / "cli")], check=True)
    cli_rep = json.loads((tmp_path / "cli" / "report.json").read_text())
    assert cli_rep["metrics"].keys() == rep["metrics"].keys()
    for name, vol in rep["volumes"].items():
        ref, _, _ = tomoraster.read_nifti(str(tmp_path / "cli" / (name + ".nii")))
        np.testing.assert_allclose(vol, ref, rtol=1e-6, atol=1e-6 * float(np.abs(ref).max() + 1e-30))


def test_bad_scene_is_a_value_error(tmp_path):
    with pytest.raises(ValueError):
        tomoraster.run({"problem": "no-such-problem"}, out=str(tmp_path / "x"))
