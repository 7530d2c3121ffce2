"""iminuit (MINUIT2's MIGRAD from Python) driving our GPU χ² beside our own fit, one process, one
GPU: the structure of musrfit with DKS (the minimiser on the host, χ² of all histograms on the
GPU per call) against tomoraster's fit (the same minimisation in C++ around the same cuda χ²).

The msr and its PSI-BIN histograms are the musr scene's eq. (5) simulation (the CLI writes
musr_eq5.msr; --msr takes any). MIGRAD then HESSE on the free parameters (fixed ones held at
their start values), once with χ² alone (MIGRAD's numerical gradient) and once with our
analytic gradient (chi2_with_gradient); agreement: largest |Δvalue| / HESSE error and the χ²
minima. A χ² written in CuPy or JAX (optimistix) would need the msr's THEORY re-implemented per
file; that is not done here (noted in the table).

  python3 bench/peers/iminuit_peer.py --cli apps/tomoraster --out peers.json --md peers.md
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import peers_table as pt  # noqa: E402


def simulate(cli, folder, detectors, bins):
    """The musr scene's simulated histograms and msr (CLI, cpu backend), returns the msr path."""
    os.makedirs(folder, exist_ok=True)
    scene = os.path.join(folder, "musr_peer.toml")
    with open(scene, "w") as f:
        f.write(f'problem = "musr"\nbackend = "cpu"\n[musr]\ndetectors = {detectors}\nbins = {bins}\nplots = false\n')
    subprocess.run([cli, "-q", "run", scene, "-o", os.path.join(folder, "out"), "--force"], check=True, stdout=subprocess.DEVNULL)
    return os.path.join(folder, "out", "musr_eq5.msr")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cli", default="apps/tomoraster")
    p.add_argument("--msr", help="fit this msr instead of simulating")
    p.add_argument("--detectors", type=int, default=16)
    p.add_argument("--bins", type=int, default=8192)
    p.add_argument("--folder", default="/tmp/tomoraster-peers-musr")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--out", default="peers.json")
    p.add_argument("--md", default="peers.md")
    a = p.parse_args(argv)
    import tomoraster
    getattr(tomoraster, "quiet", lambda: None)()
    try:
        import cupy as xp
        gpu = pt.gpu_name(xp)
    except Exception:  # noqa: BLE001
        xp, gpu = None, "cpu"
    msr = a.msr or simulate(a.cli, a.folder, a.detectors, a.bins)
    fit = tomoraster.musr.Fit(msr, backend=os.environ.get("PEERS_OURS_BACKEND", "cuda"))
    size = f"{fit.bins} bins, {len(fit.names)} parameters"
    timer = pt.Timer(None)  # host-driven loops: the wall clock (each χ² call synchronises)
    ours_ms = timer.median(fit.fit, a.reps)
    res = timer.last
    free = [q["free"] for q in res["parameters"]]
    start = fit.values
    rows = []
    try:
        import iminuit
    except Exception as e:  # noqa: BLE001
        rows.append(pt.row("iminuit", "-", "MIGRAD+HESSE", size, gpu, None, ours_ms, "", "musr.Fit.fit (cuda)",
                           f"import iminuit failed: {type(e).__name__}: {e}"))
        pt.append(a.out, a.md, rows)
        return 0
    calls = {"n": 0}

    def chi2(par):
        calls["n"] += 1
        return fit.chi2(np.asarray(par, dtype=np.float64))

    def grad(par):
        return np.asarray(fit.chi2_with_gradient(np.asarray(par, dtype=np.float64))[1], dtype=np.float64)

    for label, g in (("numerical gradient", None), ("our analytic gradient", grad)):
        def run():
            m = iminuit.Minuit(chi2, start.copy(), grad=g, name=fit.names)
            m.errordef = iminuit.Minuit.LEAST_SQUARES
            for k, f in enumerate(free):
                m.fixed[k] = not f
            m.migrad()
            m.hesse()
            return m
        calls["n"] = 0
        t_ms = timer.median(run, a.reps)
        m = timer.last
        n_calls = calls["n"] // (a.reps + 1)
        dev = max(abs(m.values[k] - res["values"][nm]) / res["errors"][nm]
                  for k, nm in enumerate(fit.names) if free[k] and res["errors"].get(nm))
        ag = (f"chi2 min {m.fval:.6g} vs ours {res['value']:.6g}; max |dvalue|/error {dev:.2e}; "
              f"valid={m.valid}; {n_calls} chi2 calls")
        rows.append(pt.row("iminuit", iminuit.__version__, f"MIGRAD+HESSE ({label}) on our cuda chi2", size, gpu,
                           t_ms, ours_ms, ag, "musr.Fit.fit (cuda): the msr's COMMANDS", "wall clock, median"))
    one_ms = timer.median(lambda: fit.chi2(start), 20)
    rows.append(pt.row("iminuit", iminuit.__version__, "one chi2 call from Python", size, gpu, None, one_ms, "",
                       "musr.Fit.chi2 (cuda)", "the cost MIGRAD pays per call"))
    rows.append(pt.row("optimistix/CuPy chi2", "-", "fit", size, gpu, None, None, "", "-",
                       "not run: needs the msr's THEORY written in JAX/CuPy per file"))
    pt.append(a.out, a.md, rows)
    print(pt.markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
