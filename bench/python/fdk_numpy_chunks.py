"""tomoraster.fdk.fdk on a NumPy stack: the volume accumulated on the backend and downloaded once
(fdk.fdk) against the former loop, one back-projection per chunk downloaded and summed on the host,
on the same stack and geometry in one process; prints both times and their relative L2. Where
ASTRA imports (tools/astra-pack.sh on PYTHONPATH), its FDK_CUDA runs on the same NumPy arrays
(cone_vec rows from our matrices, data3d.link on NumPy: its copies timed, as ours are) and the
volumes are compared after a fitted constant.

  python3 bench/python/fdk_numpy_chunks.py [--cases 256,512] [--reps 3] [--backend cuda] [--json FILE]

256: 256³ from 360 views of 512²; 512: 512³ from 496 views of 1248×960 (RabbitCT's size); a
circular orbit (source–isocentre 750 mm, source–detector 1200 mm), random line integrals (the
work does not depend on the values), Ram-Lak, no Parker weights (a full orbit; as ASTRA's FDK).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

import tomoraster
from tomoraster import _core

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

CASES = {"256": (256, 360, 512, 512), "512": (512, 496, 1248, 960)}


def circular(n, cols, rows, pixel, sid=750.0, sdd=1200.0):
    mats = []
    for a in np.linspace(0, 2 * np.pi, n, endpoint=False):
        c, s = np.cos(a), np.sin(a)
        R = np.array([[-s, c, 0.0], [0.0, 0.0, 1.0], [c, s, 0.0]])
        K = np.array([[sdd / pixel, 0, (cols - 1) / 2], [0, sdd / pixel, (rows - 1) / 2], [0, 0, 1]])
        mats.append(K @ np.hstack([R, np.array([[0.0], [0.0], [sid]])]))
    return np.array(mats)


def former(stack, mats, voxels, voxel_mm, chunk, backend):
    """The loop fdk.fdk ran before: a new back-projection per chunk, summed on the host."""
    bp = tomoraster.fdk.Backprojector(voxels, voxel_mm, None, backend, "hardware")
    total, rows, cols = stack.shape
    pre = _core.FdkPreprocessor(mats, rows, cols, "ram-lak", False, True, "auto", bp._op.backend_name)
    m = pre.matrices()
    vol = None
    for n0 in range(0, total, chunk):
        f = pre.apply(n0, np.ascontiguousarray(stack[n0:n0 + chunk]))
        part = bp.backproject(f, np.ascontiguousarray(m[n0:n0 + chunk]))
        vol = part if vol is None else vol + part
    return vol


def astra_fdk(stack, mats, L, cols, rows, pixel, reps, ours):
    """ASTRA's FDK_CUDA on the same NumPy stack: (median ms, agreement text), (None, why) without it."""
    try:
        import astra
        import rabbit_geometry as geo
    except Exception as e:  # noqa: BLE001
        return None, f"ASTRA not run: {type(e).__name__}: {e}"
    try:
        vecs = geo.cone_vec_from_matrices(mats, cols, rows, pixel)
        h = 128.0
        vol_geom = astra.create_vol_geom(L, L, L, -h, h, -h, h, -h, h)
        proj_geom = astra.create_proj_geom("cone_vec", rows, cols, vecs)

        def run():
            sino = np.ascontiguousarray(stack.transpose(1, 0, 2))  # ASTRA's (rows, views, cols)
            vol = np.zeros((L, L, L), np.float32)
            vid = astra.data3d.link("-vol", vol_geom, vol)
            sid = astra.data3d.link("-sino", proj_geom, sino)
            cfg = astra.astra_dict("FDK_CUDA")
            cfg["ReconstructionDataId"], cfg["ProjectionDataId"] = vid, sid
            aid = astra.algorithm.create(cfg)
            astra.algorithm.run(aid, 1)
            astra.algorithm.delete(aid)
            astra.data3d.delete([vid, sid])
            return vol

        ms, theirs = timed(run, reps)
        o, t = ours.astype(np.float64).ravel(), theirs.astype(np.float64).ravel()
        c = float(o @ t) / float(o @ o)
        r = float(np.corrcoef(o, t)[0, 1])
        return ms, f"ASTRA {astra.__version__}: theirs = {c:.4g} x ours, correlation {r:.4f}"
    except Exception as e:  # noqa: BLE001
        return None, f"ASTRA failed: {type(e).__name__}: {e}"


def timed(fn, reps):
    out = fn()
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        t.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(t), out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cases", default="256,512")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--backend", default="cuda")
    p.add_argument("--chunk", type=int, default=16)
    p.add_argument("--json")
    a = p.parse_args(argv)
    rows_out = []
    for name in a.cases.split(","):
        L, n, cols, rows = CASES[name]
        pixel = 600.0 / cols
        mats = circular(n, cols, rows, pixel)
        stack = np.random.default_rng(1).random((n, rows, cols), dtype=np.float32)
        voxels, voxel_mm = [L] * 3, [256.0 / L] * 3
        reps = a.reps if L <= 256 else 1
        t_new, v_new = timed(lambda: tomoraster.fdk.fdk(stack, mats, voxels, voxel_mm, backend=a.backend,
                                                        interpolation="hardware", parker=False, chunk=a.chunk), reps)
        t_old, v_old = timed(lambda: former(stack, mats, voxels, voxel_mm, a.chunk, a.backend), reps)
        rel = float(np.linalg.norm((v_new - v_old).astype(np.float64)) / np.linalg.norm(v_old.astype(np.float64)))
        astra_ms, agree = astra_fdk(stack, mats, L, cols, rows, pixel, reps, v_new)
        row = dict(case=name, L=L, views=n, detector=[cols, rows], chunk=a.chunk, backend=a.backend,
                   fdk_ms=t_new, former_ms=t_old, speedup=t_old / t_new, rel_l2_vs_former=rel,
                   astra_fdk_ms=astra_ms, astra_agreement=agree)
        rows_out.append(row)
        print(f"fdk.fdk NumPy {L}^3 from {n} views of {cols}x{rows}, chunk {a.chunk}, {a.backend}: "
              f"{t_new:.1f} ms (volume on the backend) vs {t_old:.1f} ms (per-chunk download) = "
              f"{t_old / t_new:.2f}x; rel L2 {rel:.1e}", flush=True)
        if astra_ms is not None:
            print(f"  ASTRA FDK_CUDA (NumPy in/out) {astra_ms:.1f} ms: ours {astra_ms / t_new:.2f}x; {agree}", flush=True)
        del stack
        if a.json:  # after each case: a later one may run out of time
            with open(a.json + ".tmp", "w") as f:
                json.dump(rows_out, f, indent=2)
            os.replace(a.json + ".tmp", a.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
