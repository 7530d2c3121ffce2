"""musr's fit problem from Python: the fit equals `tomoraster run` on the same msr and data, χ² at
the minimum equals the report's, the gradient matches finite differences, bad parameters raise."""
import json

import numpy as np
import pytest

import tomoraster

SCENE = {"problem": "musr", "backend": "cpu",
         "musr": {"detectors": 4, "bins": 3000, "fit_end": 4.0, "plots": False}}


@pytest.fixture(scope="module")
def cli_run(cli_run_scene):
    _, out = cli_run_scene(SCENE, "musr")
    return out / "musr_eq5.msr", json.loads((out / "report.json").read_text())


@pytest.fixture(scope="module")
def fit(cli_run):
    return tomoraster.musr.Fit(cli_run[0], backend="cpu")


def test_fit_equals_the_cli(cli_run, fit):
    _, report = cli_run
    res = fit.fit()
    assert res["converged"] and fit.statistic == "chi2"
    ref = report["fit"]
    assert [p["name"] for p in res["parameters"]] == [p["name"] for p in ref["parameters"]] == fit.names
    for p, q in zip(res["parameters"], ref["parameters"]):
        assert p["value"] == pytest.approx(q["value"], rel=1e-6, abs=1e-9), p["name"]
        assert p["free"] == q["free"] and ("error" in p) == ("error" in q)
        if "error" in p:
            assert p["error"] == pytest.approx(q["error"], rel=1e-4), p["name"]
    assert res["value"] == pytest.approx(ref["value"], rel=1e-9) and res["ndf"] == ref["ndf"]
    assert set(res["errors"]) == {p["name"] for p in res["parameters"] if p["free"]}
    assert fit.chi2(res["values"]) == pytest.approx(ref["value"], rel=1e-9)


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
