"""The cone-beam projector pair and the iterative algorithms beside ASTRA 2.5: FP3D_CUDA,
BP3D_CUDA, SIRT3D_CUDA and CGLS3D_CUDA (astra_side_by_side.py --projector).

Ours run in bench_fdk --projector (C++, arrays on the GPU), which writes its inputs and results as
.npy files (--dump): the voxelised head, the closed-form line integrals of the same head, our
3×4 matrices, our forward projections, back-projections and the volumes after K SIRT and CGLS
iterations, with its timings (ours.json). ASTRA gets the same arrays, on the GPU through CuPy
and DLPack (direct_FP3D/direct_BP3D into preallocated arrays); SIRT3D_CUDA and CGLS3D_CUDA take
host arrays only (data3d.link on NumPy: ASTRA uploads them once per run and iterates on the GPU),
its cone_vec rows derived from our matrices (rabbit_geometry.cone_vec_from_matrices). One
SIRT/CGLS iteration of ASTRA is (t(run K+1) − t(run 1)) / K, which removes its set-up and
copies; ours is the median gap between iteration callbacks. Images are compared after a fitted
constant (theirs ≈ c·ours): ASTRA's BP is not ours' B (its weight lacks the 1/cos of ours).
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rabbit_geometry as geo  # noqa: E402


def add_args(p):
    g = p.add_argument_group("--projector (projector pair and iterations)")
    g.add_argument("--projector", action="store_true", help="FP3D/BP3D/SIRT3D/CGLS3D beside ours")
    g.add_argument("--bench", default="bench/bench_fdk", help="our bench_fdk (run with --projector --dump)")
    g.add_argument("--dump", default="/tmp/tomoraster-astra-projector", help="folder of bench_fdk's arrays")
    g.add_argument("--reuse", action="store_true", help="use the arrays already in --dump")
    g.add_argument("--projector-L", type=int, default=256)
    g.add_argument("--projector-views", type=int, default=360)
    g.add_argument("--projector-detector", default="512x512")
    g.add_argument("--projector-reps", type=int, default=3, help="timed runs; iterations K = reps + 1")


def run_ours(a):
    if a.reuse:
        return
    os.makedirs(a.dump, exist_ok=True)
    cmd = [a.bench, "--projector", "--projector-L", str(a.projector_L), "--projector-views",
           str(a.projector_views), "--projector-detector", a.projector_detector, "--projector-reps",
           str(a.projector_reps), "--cpu-views", "0", "--no-sweep", "--dump", a.dump,
           "--json", os.path.join(a.dump, "ours.json")]
    print("ours:", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)


def timed(xp, fn, reps):
    """Median ms of fn() over reps runs after one warm-up, device synchronised around each."""
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
    """(c, relative L2 of theirs/c − ours) with c fitted by least squares (theirs ≈ c·ours)."""
    o = xp.asarray(ours, dtype=xp.float32).ravel()
    t = xp.asarray(theirs, dtype=xp.float32).ravel()
    oo = float((o * o).sum(dtype=xp.float64))
    c = float((o * t).sum(dtype=xp.float64)) / oo
    d = t / c - o
    return c, float(xp.sqrt((d * d).sum(dtype=xp.float64) / oo))


def nrmse(xp, v, truth):
    d = xp.asarray(v, dtype=xp.float32) - truth
    return float(xp.sqrt((d * d).mean(dtype=xp.float64))) / float(xp.abs(truth).max())


def main(a):
    import cupy as xp  # the GPU-resident arrays; no CuPy: no side by side
    import astra
    import astra.experimental  # noqa: F401
    run_ours(a)
    ld = lambda name: np.load(os.path.join(a.dump, name + ".npy"))  # noqa: E731
    ours = json.load(open(os.path.join(a.dump, "ours.json")))
    P = ld("matrices")
    n = P.shape[0]
    b = ld("line_integrals")
    _, rows, cols = b.shape
    L = ours["projector"]["L"]
    pixel_mm = ours["projector"]["pixel_mm"]
    K = ours["iterations_of_dumped_volumes"]
    vecs = geo.cone_vec_from_matrices(P, cols, rows, pixel_mm)
    err = geo.check_geometry(P, vecs, cols, rows)
    print(f"geometry: {n} views of {cols}x{rows} at {pixel_mm:.4g} mm, {L}^3 over 256 mm; cone_vec vs our "
          f"matrices: max {err:.1e} px")
    truth = xp.asarray(ld("volume"))
    sino = xp.ascontiguousarray(xp.asarray(b).transpose(1, 0, 2))  # ASTRA's (rows, n, cols)
    h = 128.0
    vol_geom = astra.create_vol_geom(L, L, L, -h, h, -h, h, -h, h)
    proj_geom = astra.create_proj_geom("cone_vec", rows, cols, vecs)
    pid = astra.create_projector("cuda3d", proj_geom, vol_geom)
    reps = a.projector_reps
    rows_out = []
    cuda = {(r["interpolation"], r["step_voxels"]): r for r in ours["cuda"]}

    def row(op, astra_ms, ours_ms, what, agreement=None, extra=""):
        r = dict(op=op, astra_ms=astra_ms, ours_ms=ours_ms, ours=what,
                 ratio=astra_ms / ours_ms if ours_ms and astra_ms else None)
        if agreement:
            r["scale_fit"], r["rel_l2_fit"] = agreement
        r["note"] = extra
        rows_out.append(r)

    def section(name, fn):
        """One comparison; a failure is printed and the table keeps the others."""
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            print(f"{name} failed: {type(e).__name__}: {e}", flush=True)
            rows_out.append(dict(op=name, astra_ms=None, ours_ms=None, ours="-", ratio=None, note=f"failed: {e}"))
        xp.get_default_memory_pool().free_all_blocks()

    def fp3d():  # FP3D_CUDA vs our forward projector A
        fp = xp.zeros((rows, n, cols), dtype=xp.float32)
        ms = timed(xp, lambda: astra.experimental.direct_FP3D(pid, truth, fp), reps)
        for (m, s), tag in ((("hardware", 1.0), "hardware_one"), (("exact", 0.5), "exact_half")):
            mine = xp.asarray(ld("ours_fp_" + tag)).transpose(1, 0, 2)
            row("FP3D_CUDA", ms, cuda[(m, s)]["forward_ms"], f"A, {m}, step {s}", fit(xp, mine, fp))

    def bp3d():  # BP3D_CUDA vs our voxel-driven B (and the exact transpose's time)
        bp = xp.zeros((L, L, L), dtype=xp.float32)
        ms = timed(xp, lambda: astra.experimental.direct_BP3D(pid, bp, sino), reps)
        for (m, s), tag in ((("hardware", 1.0), "hardware_one"), (("exact", 0.5), "exact_half")):
            mine = ld("ours_bp_voxel_" + tag)
            row("BP3D_CUDA", ms, cuda[(m, s)]["back_voxel_ms"], f"B, {m}", fit(xp, mine, bp))
        row("BP3D_CUDA", ms, cuda[("exact", 0.5)]["back_exact_ms"], "exact transpose (scatter)")
        if "cuda_fdk_backprojector_hardware_ms" in ours:
            row("BP3D_CUDA", ms, ours["cuda_fdk_backprojector_hardware_ms"], "FDK back-projector (1/w^2), hardware")

    # SIRT3D_CUDA and CGLS3D_CUDA take host float32 arrays (astra.data3d.link on NumPy): each
    # run() uploads them, iterates on the GPU and downloads the volume, so one iteration is the
    # difference of two runs.
    sino_host = np.ascontiguousarray(b.transpose(1, 0, 2))

    def algorithm(alg, key):
        def run_alg(iterations):
            vol = np.zeros((L, L, L), dtype=np.float32)
            vid = astra.data3d.link("-vol", vol_geom, vol)
            sid = astra.data3d.link("-sino", proj_geom, sino_host)
            cfg = astra.astra_dict(alg)
            cfg["ReconstructionDataId"], cfg["ProjectionDataId"] = vid, sid
            if key == "sirt":
                cfg["option"] = {"MinConstraint": 0.0}  # ours clamps at 0 too (fdk.nonnegative)
            aid = astra.algorithm.create(cfg)
            t0 = time.perf_counter()
            astra.algorithm.run(aid, iterations)
            t = (time.perf_counter() - t0) * 1e3
            astra.algorithm.delete(aid)
            astra.data3d.delete([vid, sid])
            return vol, t
        run_alg(1)  # warm-up
        _, t1 = run_alg(1)
        vol, tk = run_alg(K + 1)
        per = (tk - t1) / K
        vol, _ = run_alg(K)
        vol = xp.asarray(vol)
        for (m, s), tag in ((("hardware", 1.0), "hardware_one"), (("exact", 0.5), "exact_half")):
            r = cuda[(m, s)]
            if key + "_iteration_ms" not in r:
                continue
            mine = ld(f"ours_{key}_{tag}")
            row(alg, per, r[key + "_iteration_ms"], f"{key}, {m}, step {s}", fit(xp, mine, vol),
                f"NRMSE vs phantom after {K}: ASTRA {nrmse(xp, vol, truth):.4f}, ours {nrmse(xp, mine, truth):.4f}")

    section("FP3D_CUDA", fp3d)
    section("BP3D_CUDA", bp3d)
    section("SIRT3D_CUDA", lambda: algorithm("SIRT3D_CUDA", "sirt"))
    section("CGLS3D_CUDA", lambda: algorithm("CGLS3D_CUDA", "cgls"))
    astra.projector3d.delete(pid)

    dev = xp.cuda.runtime.getDeviceProperties(xp.cuda.Device().id)["name"].decode()
    print(f"\nASTRA {astra.__version__} side by side on {dev}: {L}^3, {n} views of {cols}x{rows}, the same arrays "
          "on the GPU")
    head = f"{'operation':<12} | {'ASTRA ms':>9} | {'ours ms':>9} | {'ASTRA/ours':>10} | {'rel L2 (c fit)':>14} | " \
           f"{'c':>9} | ours"
    print(head)
    print("-" * len(head))
    for r in rows_out:
        ag = f"{r['rel_l2_fit']:>14.2e} | {r['scale_fit']:>9.4g}" if "rel_l2_fit" in r else f"{'-':>14} | {'-':>9}"
        ratio = f"{r['ratio']:>9.2f}x" if r["ratio"] else f"{'-':>10}"
        ms = lambda v: f"{v:>9.2f}" if v is not None else f"{'-':>9}"  # noqa: E731
        print(f"{r['op']:<12} | {ms(r['astra_ms'])} | {ms(r['ours_ms'])} | {ratio} | {ag} | {r['ours']}"
              + (f"  ({r['note']})" if r["note"] else ""))
    print(f"one SIRT/CGLS iteration of ASTRA = (t(run {K + 1}) - t(run 1)) / {K}; ours: median gap between "
          "iteration callbacks; FP/BP: median of "
          f"{reps} after a warm-up; c: ASTRA over ours (least squares)")
    if a.json:
        doc = dict(device=dev, astra=astra.__version__, L=L, views=n, detector=[cols, rows], rows=rows_out,
                   ours=ours)
        with open(a.json + ".tmp", "w") as f:
            json.dump(doc, f, indent=2)
        os.replace(a.json + ".tmp", a.json)
        print(f"wrote {a.json}")
    return 0
