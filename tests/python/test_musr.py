"""musr's fit problem from Python: the fit equals `tomoraster run` on the same msr and data, χ² at
the minimum equals the report's, the gradient matches finite differences, bad parameters raise."""
import json
import subprocess

import numpy as np
import pytest

import tomoraster
from tomoraster._scene import to_toml

SCENE = {"problem": "musr", "backend": "cpu",
         "musr": {"detectors": 4, "bins": 3000, "fit_end": 4.0, "plots": False}}


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory, cli):
    d = tmp_path_factory.mktemp("musr")
    scene = d / "scene.toml"
    scene.write_text(to_toml(SCENE))
    subprocess.run([cli, "-q", "run", str(scene), "-o", str(d / "out")], check=True, stdout=subprocess.DEVNULL)
    report = json.loads((d / "out" / "report.json").read_text())
    return d / "out" / "musr_eq5.msr", report


@pytest.fixture(scope="module")
def fit(cli_run):
    return tomoraster.musr.Fit(cli_run[0], backend="cpu")


def test_fit_equals_the_cli(cli_run, fit):
    _, report = cli_run
    res = fit.fit()
    assert res["converged"] and fit.statistic == "chi2"
    ref = {p["name"]: p for p in report["fit"]["parameters"]}
    assert list(res["parameters"]) == list(ref) == fit.names
    for name, p in res["parameters"].items():
        assert p["value"] == pytest.approx(ref[name]["value"], rel=1e-6, abs=1e-9), name
        assert p["free"] == ref[name]["free"]
        if p["free"]:
            assert p["error"] == pytest.approx(ref[name]["error"], rel=1e-4), name
    best = {n: p["value"] for n, p in res["parameters"].items()}
    assert fit.chi2(best) == pytest.approx(report["fit"]["value"], rel=1e-9)


def test_gradient_matches_finite_differences(fit):
    p = fit.values
    v, g = fit.chi2_with_gradient(p)
    assert v == pytest.approx(fit.chi2(p), rel=1e-12)
    free = [i for i, x in enumerate(g) if x != 0]
    assert free
    for i in free[:3]:
        h = 1e-6 * max(1.0, abs(p[i]))
        up, down = p.copy(), p.copy()
        up[i] += h
        down[i] -= h
        assert g[i] == pytest.approx((fit.chi2(up) - fit.chi2(down)) / (2 * h), rel=1e-4, abs=1e-3)


def test_bad_parameters_raise(fit):
    with pytest.raises(ValueError, match="params: shape"):
        fit.chi2(np.ones(2))
    with pytest.raises(TypeError, match="params: dtype must be float64"):
        fit.chi2(np.ones(len(fit.names), dtype=np.float32))
    with pytest.raises(ValueError, match="no parameter named"):
        fit.chi2({"nonsense": 1.0})
    with pytest.raises(ValueError):
        tomoraster.musr.Fit("/no/such/file.msr", backend="cpu")
