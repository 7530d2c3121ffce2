"""musr ([Locans2017] §4): μSR histogram fits of an msr file and its data (PSI-BIN beside it)."""
from __future__ import annotations

import json
from typing import Mapping, Sequence

import numpy as np

from . import _checks, _core


class Fit:
    """The msr's fit problem on one backend (cpu, gl-compute, cuda, auto).

    ``chi2(params)`` is χ² (or musrfit's −2 ln L with MAX_LIKELIHOOD) over all runs at a full
    parameter vector (every PAR of the msr, in order; a dict {name: value} fills the rest from
    the msr), ``chi2_with_gradient`` adds ∂/∂params, ``fit()`` runs the msr's COMMANDS as
    ``tomoraster fit`` does and returns the values and errors.

    With backend="cuda", ``chi2(params, bins=b)`` / ``chi2_with_gradient(params, bins=b)`` read
    the fitted bins from the caller's CUDA array b (CuPy, PyTorch; float64, or float32 with
    single_precision=True) in place instead of the msr's data: b holds every run's bins
    concatenated, as ``data()`` returns the msr's own. The errors follow from the bins (Poisson),
    so the fit must be a χ² of counts or MAX_LIKELIHOOD (else ValueError).
    """

    def __init__(self, msr: str, backend: str = "auto", single_precision: bool = False):
        self._op = _checks.call(_core.MusrFit, _checks.path("msr", msr), backend, single_precision)

    def __repr__(self) -> str:
        return (f"tomoraster.musr.Fit(backend={self._op.describe()!r}, statistic={self.statistic!r}, "
                f"parameters={len(self.names)}, bins={self.bins})")

    @property
    def names(self) -> list:
        return list(self._op.names)

    @property
    def values(self) -> np.ndarray:
        """The start values of the msr's parameters."""
        return np.array(self._op.values, dtype=np.float64)

    @property
    def statistic(self) -> str:
        return self._op.statistic

    @property
    def bins(self) -> int:
        return self._op.bins

    @property
    def backend(self) -> str:
        return self._op.describe()

    def _params(self, params) -> np.ndarray:
        if isinstance(params, Mapping):
            unknown = set(params) - set(self.names)
            if unknown:
                raise ValueError(f"params: no parameter named {sorted(unknown)} in the msr (it has {self.names})")
            p = self.values
            for k, v in params.items():
                p[self.names.index(k)] = v
            return p
        if isinstance(params, np.ndarray):
            return params
        return np.asarray(params, dtype=np.float64)

    def data(self) -> np.ndarray:
        """The msr's fitted bins of every run, concatenated (float64; the layout of ``bins=``)."""
        return self._op.data()

    def chi2(self, params: Sequence[float] | Mapping[str, float] | np.ndarray, bins=None) -> float:
        if bins is not None:
            return self._op.chi2_device(self._params(params), bins)
        return self._op.chi2(self._params(params))

    def chi2_with_gradient(self, params, bins=None):
        if bins is not None:
            return self._op.chi2_with_gradient_device(self._params(params), bins)
        return self._op.chi2_with_gradient(self._params(params))

    def fit(self) -> dict:
        """Runs the msr's COMMANDS; returns the CLI report's "fit" entry ("parameters": a list of
        {"name", "value", "free", "error", "minos_minus", "minos_plus"}, "statistic", "value",
        "ndf", "edm", "converged", ...) with "fmin", "covariance" (free parameters), "log", and
        "values" / "errors": {name: value} and {name: HESSE error} of every (free) parameter."""
        res = json.loads(self._op.fit())
        res["values"] = {p["name"]: p["value"] for p in res["parameters"]}
        res["errors"] = {p["name"]: p["error"] for p in res["parameters"] if "error" in p}
        return res
