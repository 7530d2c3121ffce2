"""One GPU path for musr (marker gpu; the GPU machine runs it with `-m gpu`, docs/python.md):
Fit.chi2 / chi2_with_gradient with bins= a CUDA array (cuda/musr/device_arrays, an adapter over
the registry's cuda evaluator) and the same Fit's backend="cuda" on the msr's own NumPy bins run
the same kernels: bit-identical χ² and gradient, in double and float."""
from pathlib import Path

import numpy as np
import pytest

import tomoraster
from test_gpu import FRAMEWORKS, Kind

pytestmark = pytest.mark.gpu
MUSR = {"problem": "musr", "backend": "cpu", "musr": {"detectors": 4, "bins": 3001, "fit_end": 4.0, "plots": False}}


@pytest.fixture(params=FRAMEWORKS)
def kind(request):
    return Kind(request.param)


@pytest.fixture(scope="module")
def musr_msr(tmp_path_factory):
    """An msr and its PSI-BIN data, simulated and fitted by tomoraster.run (no CLI needed)."""
    rep = tomoraster.run(MUSR, out=str(tmp_path_factory.mktemp("musr_identity")), force=True, load=False)
    return str(Path(rep["output_dir"]) / "musr_eq5.msr")


@pytest.mark.parametrize("single", [False, True])
def test_musr_device_arrays_and_cuda_backend_are_bit_identical(kind, musr_msr, single):
    fit = tomoraster.musr.Fit(musr_msr, backend="cuda", single_precision=single)
    y, p = fit.data(), fit.values
    b = kind.to_gpu(y.astype(np.float32 if single else np.float64))
    v_np, g_np = fit.chi2_with_gradient(p)  # the msr's own bins, uploaded from NumPy
    v_dev, g_dev = fit.chi2_with_gradient(p, bins=b)  # the caller's CUDA array
    assert v_np > 0.0 and np.abs(g_np).max() > 0.0
    assert v_dev == v_np
    assert np.array_equal(g_dev, g_np)
    assert fit.chi2(p, bins=b) == fit.chi2(p)
