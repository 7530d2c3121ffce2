"""optimistix (JAX least squares, everything on the GPU) beside our musr fit on the same histograms,
one process, one GPU; rows go to the peers table (peers_table.py).

The msr is the musr scene's eq. (5) simulation ([Locans2017]: 16 detectors × 8192 bins, the CLI
writes musr_eq5.msr and its PSI-BIN file; --msr takes one made beforehand). Its THEORY, written
again in JAX for this msr alone (single-histogram fits, fittype 0):

  N_j(t) = N0_j e^(−t/τ_μ) [1 + Asy_j e^(−(Sigma t)²/2) cos(2π γ_μ/2π Field t + Phase_j π/180)] + Bkg_j

on the bins our package fits (musr.Fit.data(): counts per ns, t_k = dt·(first good bin − t0 + k)
inside the fit range, σ_k = sqrt(y_k / (dt·1000 ns)) as musrfit's scaled single histograms). The
JAX χ² at the msr's start values and at our minimum is checked against our cuda χ²
(musr.Fit.chi2) first: the row says both, so a convention mismatch shows. Then:
  - optimistix.LevenbergMarquardt on the residuals (jit-compiled; compile time apart), float64;
  - if iminuit imports: MIGRAD + HESSE on the JAX χ² with jax.grad (musrfit + DKS's structure:
    the minimiser on the host, a GPU χ² per call);
against musr.Fit.fit() (cuda: the msr's MIGRAD + HESSE in C++ around our χ²). Agreement: the
χ² minima and the largest |Δvalue| / our HESSE error. Wall clock, median of --reps.

  python3 bench/peers/optimistix_peer.py --cli build/apps/tomoraster --out peers.json --md peers.md
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import peers_table as pt  # noqa: E402
import iminuit_peer  # noqa: E402  (its simulate())

GAMMA_MU_OVER_2PI = 0.01355388094  # MHz/G, as compute/musr/expression.hpp
TAU_MU = 2.1969811  # µs


def wall(fn, reps, warmup=1):
    ms, out = [], None
    for k in range(warmup + reps):
        t0 = time.perf_counter()
        out = fn()
        if k >= warmup:
            ms.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ms), out


def msr_geometry(msr):
    """(t0, first good bin, fit range end in µs) of the GLOBAL block of our generated msr."""
    t0 = first = None
    end = None
    for line in open(msr):
        w = line.split()
        if len(w) >= 2 and w[0] == "t0":
            t0 = float(w[1])
        elif len(w) >= 3 and w[0] == "data":
            first = int(w[1])
        elif len(w) >= 3 and w[0] == "fit":
            end = float(w[2])
    return t0, first, end


def run(a):
    import tomoraster
    getattr(tomoraster, "quiet", lambda: None)()
    msr = a.msr or iminuit_peer.simulate(a.cli, a.folder, a.detectors, a.bins)
    fit = tomoraster.musr.Fit(msr, backend=os.environ.get("PEERS_OURS_BACKEND", "cuda"))
    names = fit.names
    start = fit.values
    y_all = fit.data()
    nd = sum(1 for n in names if n.startswith("N0_"))
    nb = y_all.size // nd
    size = f"{nd} x {nb} fitted bins, {len(names)} parameters"
    ours_ms, res = wall(fit.fit, a.reps)
    best = np.array([res["values"][n] for n in names])
    t0, first, _ = msr_geometry(msr)
    dt = a.dt_us
    norm = dt * 1e3
    t = dt * (first - np.floor(t0) + np.arange(nb))
    y = y_all.reshape(nd, nb)
    sigma = np.where(y > 0, np.sqrt(np.maximum(y, 0) / norm), 1.0 / norm)
    ix = {n: k for k, n in enumerate(names)}
    per = np.array([[ix[f"N0_{j + 1}"], ix[f"Asy_{j + 1}"], ix[f"Phase_{j + 1}"], ix[f"Bkg_{j + 1}"]]
                    for j in range(nd)])
    gpu = "-"
    rows = []
    try:
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        devs = jax.devices()
        gpu = f"{devs[0].device_kind} ({devs[0].platform})"
        print(f"JAX {jax.__version__} on {devs}")
        if devs[0].platform != "gpu" and os.environ.get("PEERS_OURS_BACKEND") != "cpu":  # cpu: a plumbing check
            raise RuntimeError(f"JAX runs on {devs[0].platform}, not the GPU")
        import optimistix as optx
        import equinox  # noqa: F401
    except Exception as e:  # noqa: BLE001
        note = f"not run: {type(e).__name__}: {e}"
        print("optimistix", note)
        rows.append(pt.row("optimistix", "-", "Levenberg-Marquardt", size, gpu, None, ours_ms, "",
                           "musr.Fit.fit (cuda)", note))
        return rows
    tj, yj, sj, perj = (jnp.asarray(v) for v in (t, y, sigma, per))
    isig, ifld = ix["Sigma"], ix["Field"]

    def residuals(p, _args=None):
        n0, asy, ph, bkg = (p[perj[:, k]][:, None] for k in range(4))
        s, field = p[isig], p[ifld]
        g = jnp.exp(-0.5 * (s * tj) ** 2)
        osc = jnp.cos(2 * jnp.pi * GAMMA_MU_OVER_2PI * field * tj + ph * (jnp.pi / 180))
        model = n0 * jnp.exp(-tj / TAU_MU) * (1 + asy * g * osc) + bkg
        return ((yj - model) / sj).ravel()

    chi2 = jax.jit(lambda p: jnp.sum(residuals(p) ** 2))
    check = []
    for label, p in (("start", start), ("our minimum", best)):
        mine, theirs = float(fit.chi2(p)), float(chi2(jnp.asarray(p)))
        check.append(f"{label}: JAX {theirs:.8g} vs ours {mine:.8g}")
    check = "; ".join(check)
    print("chi2 check:", check)
    free = np.array([q["free"] for q in res["parameters"]])
    fixed_vals = jnp.asarray(start)
    free_ix = jnp.asarray(np.flatnonzero(free))

    def full(q):
        return fixed_vals.at[free_ix].set(q)

    solver = optx.LevenbergMarquardt(rtol=a.rtol, atol=a.atol)

    @jax.jit
    def solve(q0):
        sol = optx.least_squares(lambda q, args: residuals(full(q)), solver, q0, max_steps=a.max_steps,
                                 throw=False)
        return sol.value, sol.result, sol.stats["num_steps"]

    q0 = jnp.asarray(start[free])
    t_c = time.perf_counter()
    out = solve(q0)
    jax.block_until_ready(out)
    compile_ms = (time.perf_counter() - t_c) * 1e3

    def timed_solve():
        o = solve(q0)
        jax.block_until_ready(o)
        return o
    lm_ms, (q, result, steps) = wall(timed_solve, a.reps, warmup=0)
    p_lm = np.asarray(full(q))
    ok = "converged" if bool(result == optx.RESULTS.successful) else f"not converged ({result})"
    errors = res["errors"]
    dev = max((abs(p_lm[k] - res["values"][n]) / errors[n] for k, n in enumerate(names)
               if free[k] and errors.get(n)), default=float("nan"))
    from importlib.metadata import version as dist_version
    rows.append(pt.row("optimistix", dist_version("optimistix"),
                       "Levenberg-Marquardt, JAX chi2 on the GPU (jit)", size, gpu, lm_ms, ours_ms,
                       f"chi2 min {float(chi2(jnp.asarray(p_lm))):.6g} vs ours {res['value']:.6g}; "
                       f"max |dvalue|/error {dev:.2e}; {int(steps)} steps, {ok}; {check}",
                       "musr.Fit.fit (cuda): MIGRAD + HESSE in C++",
                       f"JAX {jax.__version__}, float64; compile + first solve {compile_ms:.0f} ms (not timed)"))
    try:
        import iminuit
    except Exception as e:  # noqa: BLE001
        print(f"iminuit not imported ({e}): no MIGRAD-on-JAX row")
        return rows
    grad = jax.jit(jax.grad(lambda p: jnp.sum(residuals(p) ** 2)))
    chi2_h = lambda p: float(chi2(jnp.asarray(p)))  # noqa: E731
    grad_h = lambda p: np.asarray(grad(jnp.asarray(p)))  # noqa: E731
    grad_h(start)  # compiled outside the timing

    def migrad():
        m = iminuit.Minuit(chi2_h, start.copy(), grad=grad_h, name=names)
        m.errordef = iminuit.Minuit.LEAST_SQUARES
        for k, f in enumerate(free):
            m.fixed[k] = not f
        m.migrad()
        m.hesse()
        return m
    mi_ms, m = wall(migrad, a.reps)
    dev = max((abs(m.values[k] - res["values"][n]) / errors[n] for k, n in enumerate(names)
               if free[k] and errors.get(n)), default=float("nan"))
    rows.append(pt.row("iminuit + JAX chi2", iminuit.__version__, "MIGRAD + HESSE (jax.grad)", size, gpu, mi_ms,
                       ours_ms, f"chi2 min {m.fval:.6g} vs ours {res['value']:.6g}; max |dvalue|/error {dev:.2e}; "
                       f"valid={m.valid}", "musr.Fit.fit (cuda)", "wall clock; the χ² in JAX on the GPU"))
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cli", default="apps/tomoraster")
    p.add_argument("--msr", help="fit this msr (the musr scene's eq. (5) kind) instead of simulating")
    p.add_argument("--detectors", type=int, default=16)
    p.add_argument("--bins", type=int, default=8192)
    p.add_argument("--dt-us", type=float, default=0.001953125, help="the histograms' bin width")
    p.add_argument("--folder", default="/tmp/tomoraster-peers-musr")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--rtol", type=float, default=1e-8)
    p.add_argument("--atol", type=float, default=1e-8)
    p.add_argument("--max-steps", type=int, default=200)
    p.add_argument("--out", default="peers.json")
    p.add_argument("--md", default="peers.md")
    a = p.parse_args(argv)
    rows = []
    pt.guarded(rows, lambda: run(a), "optimistix", "-", "Levenberg-Marquardt", "musr eq. (5)", "-")
    pt.append(a.out, a.md, rows)
    print(pt.markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
