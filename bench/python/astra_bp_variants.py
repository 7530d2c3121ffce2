"""ASTRA 2.5's BP3D_CUDA beside the candidate kernels of our B (bench_fdk --b-variants).

bench_fdk --b-variants --b-dump DIR writes, per case (DIR/256, DIR/rabbit), our 3×4 matrices,
the sizes and our timings (ours.json), and at 256³ the synthetic stack and the product's B
volumes. This script gives ASTRA the same geometry as cone_vec rows (rabbit_geometry), runs
astra.experimental.direct_BP3D on GPU-resident CuPy arrays (warm-up, median of --reps, device
synchronised around each), and prints ASTRA's time beside every row of ours with the ratio.
Where the stack was dumped, ASTRA back-projects it and the volumes (the product's, and the
variants' that dump theirs as ours_b_<variant>.npy) are compared after a fitted constant (ASTRA's
BP weight is not B's: it lacks the 1/cos of ours).

  python3 bench/python/astra_bp_variants.py DIR [--reps 5] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rabbit_geometry as geo  # noqa: E402


def timed(xp, fn, reps):
    fn()
    out = []
    for _ in range(reps):
        xp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        fn()
        xp.cuda.Device().synchronize()
        out.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(out)


def fit(xp, ours, theirs):
    """(c, relative L2 of theirs/c − ours), c by least squares (theirs ≈ c·ours)."""
    o = xp.asarray(ours, dtype=xp.float32).ravel()
    t = xp.asarray(theirs, dtype=xp.float32).ravel()
    oo = float((o * o).sum(dtype=xp.float64))
    c = float((o * t).sum(dtype=xp.float64)) / oo
    d = t / c - o
    return c, float(xp.sqrt((d * d).sum(dtype=xp.float64) / oo))


def run_case(xp, astra, folder, reps):
    meta = json.load(open(os.path.join(folder, "meta.json")))
    ours = json.load(open(os.path.join(folder, "ours.json")))
    L, n, cols, rows, pixel_mm = meta["L"], meta["views"], meta["cols"], meta["rows"], meta["pixel_mm"]
    P = np.load(os.path.join(folder, "matrices.npy"))
    vecs = geo.cone_vec_from_matrices(P, cols, rows, pixel_mm)
    err = geo.check_geometry(P, vecs, cols, rows)
    h = 128.0
    vol_geom = astra.create_vol_geom(L, L, L, -h, h, -h, h, -h, h)
    proj_geom = astra.create_proj_geom("cone_vec", rows, cols, vecs)
    pid = astra.create_projector("cuda3d", proj_geom, vol_geom)
    stack_file = os.path.join(folder, "stack.npy")
    if os.path.exists(stack_file):
        sino = xp.ascontiguousarray(xp.asarray(np.load(stack_file)).transpose(1, 0, 2))  # (rows, n, cols)
    else:  # timing only: the values do not change the work
        sino = xp.random.default_rng(1).random((rows, n, cols), dtype=xp.float32)
    bp = xp.zeros((L, L, L), dtype=xp.float32)
    ms = timed(xp, lambda: astra.experimental.direct_BP3D(pid, bp, sino), reps)
    print(f"\n{os.path.basename(folder)}: {L}^3, {n} views of {cols}x{rows} at {pixel_mm:.4g} mm "
          f"(cone_vec vs our matrices: max {err:.1e} px); ASTRA BP3D_CUDA {ms:.2f} ms (median of {reps})")
    res = dict(case=os.path.basename(folder), L=L, views=n, detector=[cols, rows], astra_bp3d_ms=ms, rows=[])
    variants = sorted(f[len("ours_b_"):-len(".npy")] for f in os.listdir(folder)
                      if f.startswith("ours_b_") and f.endswith(".npy") and f not in ("ours_b_hardware.npy", "ours_b_exact.npy"))
    for tag in ["hardware", "exact"] + variants:
        f = os.path.join(folder, f"ours_b_{tag}.npy")
        if os.path.exists(f):
            c, rel = fit(xp, np.load(f), bp)
            res[f"agreement_{tag}"] = dict(scale_fit=c, rel_l2_fit=rel)
            who = f"our product B ({tag})" if tag in ("hardware", "exact") else f"our {tag}"
            print(f"  ASTRA vs {who}: c = {c:.4g}, rel L2 after c {rel:.4e}")
    lines = [("product B, hardware", ours["product_hardware_ms"], None),
             ("product B, exact", ours["product_exact_ms"], None)]
    lines += [(r["variant"], r["ms"], r["rel_l2_vs_exact"]) for r in ours.get("rows", [])]
    print(f"  {'ours':<58} {'ms':>8} {'ASTRA/ours':>10} {'rel L2 vs exact B':>18}")
    for name, t, acc in lines:
        res["rows"].append(dict(ours=name, ours_ms=t, ratio=ms / t, rel_l2_vs_exact=acc))
        a = f"{acc:>18.2e}" if acc is not None else f"{'':>18}"
        print(f"  {name:<58} {t:>8.2f} {ms / t:>9.2f}x {a}")
    astra.projector3d.delete(pid)
    del sino, bp
    xp.get_default_memory_pool().free_all_blocks()
    return res


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("dump", help="bench_fdk --b-variants --b-dump folder")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--json", help="write the results here")
    a = p.parse_args(argv)
    try:
        import cupy as xp
        import astra
        import astra.experimental  # noqa: F401
    except Exception as e:  # noqa: BLE001
        print(f"ASTRA side by side not run: {type(e).__name__}: {e}")
        return 0
    dev = xp.cuda.runtime.getDeviceProperties(xp.cuda.Device().id)["name"].decode()
    print(f"ASTRA {astra.__version__} on {dev}")
    out = dict(device=dev, astra=astra.__version__, cases=[])
    for case in ("256", "rabbit"):
        folder = os.path.join(a.dump, case)
        if os.path.isdir(folder):
            try:
                out["cases"].append(run_case(xp, astra, folder, a.reps))
            except Exception as e:  # noqa: BLE001
                print(f"{case} failed: {type(e).__name__}: {e}")
    if a.json:
        with open(a.json + ".tmp", "w") as f:
            json.dump(out, f, indent=2)
        os.replace(a.json + ".tmp", a.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
