"""TIGRE beside ours on one GPU, in one process: its projector pair (Ax interpolated and Siddon,
Atb "matched" and "FDK") and its FDK, SIRT and CGLS on the circular orbit of the ASTRA FDK rows
(256³ over a 256 mm cube, 360 views of 512×512 at 0.9 mm, source–isocentre 750 mm,
source–detector 1200 mm) and the same four balls; rows go to the peers table (peers_table.py).

Geometry: the orbit is written in TIGRE's fields (DSO, DSD, nDetector (v, u), dDetector, nVoxel
and sVoxel (z, y, x), angles in rad) and ours is tomoraster.fdk.tigre() of the same fields, so the
matrices come from TIGRE's convention; the projections are the balls' exact chord lengths along
the rays of those matrices (rabbit_geometry: cone_vec rows derived from the matrices, no
projector of either side), TIGRE's (N, v, u) and image (z, y, x) are ours as they are. Two checks
that need nothing of ours: TIGRE's Ax of the voxelised balls against the chord lengths, and its
FDK image against the balls.

TIGRE takes and returns NumPy arrays (each call uploads and downloads); ours are timed the same
way, NumPy in and out (fdk.ConeBeam, fdk.sirt/cgls, fdk.Backprojector, fdk.fdk), and where our
package takes CuPy arrays once more GPU-resident (the note says so). FDK from NumPy filters on
the host on both sides (TIGRE: scipy.fft; ours: the package's host filter); our fdk.fdk with a
CuPy stack filters with cuFFT, timed with the upload and download included. One SIRT/CGLS
iteration of both is (t(K+1 iterations) − t(1)) / K, which removes set-up and copies.

  python3 bench/peers/tigre_peer.py --out peers.json --md peers.md      (TIGRE on PYTHONPATH)
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "python"))
import peers_table as pt  # noqa: E402

BACKEND = os.environ.get("PEERS_OURS_BACKEND", "cuda")
SID, SDD, SIDE_MM = 750.0, 1200.0, 256.0
# Our pair in both interpolations: "exact" (fp32 weights, the matched pair) and "hardware" (the
# texture unit's filter, 8-bit weights, the pair that is 2-8x faster on cuda).
PAIR = {"exact": "exact", "hardware": "hardware (texture)"}


def geometry_arguments(p, reps=3):
    """The orbit's size on the command line (this script's and cone_numpy_stages.py's)."""
    p.add_argument("--L", type=int, default=256)
    p.add_argument("--views", type=int, default=360)
    p.add_argument("--detector", type=int, default=512, help="square detector, pixels a side")
    p.add_argument("--pixel-mm", type=float, default=0.9)
    p.add_argument("--reps", type=int, default=reps)


def tigre_geometry(tigre, L, views, rows, cols, pixel):
    """TIGRE's cone geometry of the orbit (its fields, its Python axis orders)."""
    g = tigre.geometry_default(high_resolution=False)
    g.DSD, g.DSO = SDD, SID
    g.nDetector = np.array((rows, cols))
    g.dDetector = np.array((pixel, pixel))
    g.sDetector = g.nDetector * g.dDetector
    g.nVoxel = np.array((L, L, L))
    g.sVoxel = np.array((SIDE_MM,) * 3)
    g.dVoxel = g.sVoxel / g.nVoxel
    g.offOrigin = np.array((0.0, 0.0, 0.0))
    g.offDetector = np.array((0.0, 0.0))
    g.rotDetector = np.array((0.0, 0.0, 0.0))
    g.COR = 0.0
    g.accuracy = 0.5
    g.mode = "cone"
    return g


def ours_geometry(tomoraster, L, views, rows, cols, pixel, angles):
    """tomoraster.fdk.tigre() of the same fields."""
    return tomoraster.fdk.tigre(DSD=SDD, DSO=SID, nDetector=(rows, cols), dDetector=(pixel, pixel),
                                nVoxel=(L, L, L), sVoxel=(SIDE_MM,) * 3, angles=angles)


def wall(fn, reps, warmup=1):
    """(median ms, last result) on the wall clock: host-in/host-out calls synchronise themselves."""
    t = pt.Timer(None)
    ms = t.median(fn, reps, warmup)
    return ms, t.last


def run(a):
    import cupy as xp
    import tomoraster
    import rabbit_geometry as geo
    import astra_peer as ap
    getattr(tomoraster, "quiet", lambda: None)()
    # TIGRE splits its projectors over every GPU it sees: the GPU column says how many that was.
    n_gpus = xp.cuda.runtime.getDeviceCount()
    gpu = pt.gpu_name(xp) + (f" ({n_gpus} GPUs for TIGRE)" if n_gpus > 1 else ", one GPU")
    print(f"TIGRE sees {n_gpus} GPU(s) (CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES', 'unset')})")
    L, views, cols, rows, pixel = a.L, a.views, a.detector, a.detector, a.pixel_mm
    size = f"{L}^3, {views} views of {cols}x{rows}"
    angles = np.arange(views) * 2 * np.pi / views
    g_ours = ours_geometry(tomoraster, L, views, rows, cols, pixel, angles)
    P = g_ours.matrices
    vecs = geo.cone_vec_from_matrices(P, cols, rows, pixel)
    print(f"TIGRE geometry through fdk.tigre: cone_vec rows vs the matrices: max "
          f"{geo.check_geometry(P, vecs, cols, rows):.1e} px; source of view 0 at {np.round(vecs[0, :3], 3)}")
    proj_d = geo.ball_projections(xp, vecs, cols, rows)  # (N, rows, cols) float32, exact chords
    proj = xp.asnumpy(proj_d)
    truth_d = ap.balls_volume(xp, L)
    truth = xp.asnumpy(truth_d)
    m = slice(L // 10, L - L // 10)
    nrm = lambda v: float(np.sqrt(((v[m, m, m] - truth[m, m, m]) ** 2).mean()) / truth.max())  # noqa: E731
    rows_out = []
    try:
        import tigre
        import tigre.algorithms as talg
        version = getattr(tigre, "__version__", None) or a.tigre_version
        print(f"TIGRE {version} from {os.path.dirname(tigre.__file__)}")
    except Exception as e:  # noqa: BLE001
        tigre, version = None, "-"
        note = f"TIGRE not run: import failed: {type(e).__name__}: {e}"
        print(note)
    # (the cpu backend has no texture unit: its plumbing check runs the exact pair alone)
    pair = {m: d for m, d in PAIR.items() if BACKEND != "cpu" or m == "exact"}
    ops = {m: tomoraster.fdk.ConeBeam(g_ours, BACKEND, step_voxels=0.5, interpolation=m) for m in pair}
    op = ops["exact"]
    bp = tomoraster.fdk.Backprojector((L, L, L), (SIDE_MM / L,) * 3, backend=BACKEND, interpolation="hardware")
    ours_fdk = lambda p: tomoraster.fdk.fdk(p, P, (L, L, L), (SIDE_MM / L,) * 3, backend=BACKEND,  # noqa: E731
                                            interpolation="hardware", parker=False)

    def add(op_name, theirs_ms, ours_ms, agreement, ours, note=""):
        # Written at once: an error inside TIGRE's extensions ends the process, not only the step.
        r = pt.row("TIGRE", version, op_name, size, gpu, theirs_ms, ours_ms, agreement, ours, note)
        rows_out.append(r)
        pt.append(a.out, a.md, [r])

    if tigre is None:  # our half alone
        ms, _ = wall(lambda: op.forward(truth), a.reps)
        add("Ax", None, ms, "", "fdk.ConeBeam.forward (cuda, exact, step 0.5, NumPy in/out)", note)
        ms, v = wall(lambda: ours_fdk(proj), a.reps)
        add("FDK", None, ms, f"ours NRMSE vs phantom {nrm(v):.4f}", "fdk.fdk (cuda, hardware, NumPy in/out)", note)
        return []
    g = tigre_geometry(tigre, L, views, rows, cols, pixel)
    tang = angles.astype(np.float32)

    def section(name, fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            print(f"TIGRE {name}: failed: {type(e).__name__}: {e}", flush=True)
            add(name, None, None, "", "-", f"failed: {type(e).__name__}: {e}")
        xp.get_default_memory_pool().free_all_blocks()

    def ax():
        ours = {m: wall(lambda o=o: o.forward(truth), a.reps) for m, o in ops.items()}
        ms_interp = None
        for kind in ("interpolated", "Siddon"):
            ms, theirs = wall(lambda: tigre.Ax(truth, g, tang, kind), a.reps)
            ms_interp = ms if kind == "interpolated" else ms_interp
            chk = pt.fit_scale(np, proj, theirs)
            for m, (ours_ms, mine) in ours.items():
                add(f"Ax ({kind}{', accuracy 0.5' if kind == 'interpolated' else ''})", ms, ours_ms,
                    pt.agreement(np, mine, theirs, "vs ours: ") + f"; vs exact chords: c={chk[0]:.4g}, rel L2 {chk[1]:.2e}",
                    f"fdk.ConeBeam.forward (cuda, {PAIR[m]}, step 0.5, NumPy in/out)")
        for m, (_, mine) in ours.items():
            ours_chk = pt.fit_scale(np, proj, mine)
            print(f"ours A ({m}) vs exact chords: c={ours_chk[0]:.4g}, rel L2 {ours_chk[1]:.2e}")
        device_rows("Ax (interpolated, accuracy 0.5)", ms_interp, "forward", truth_d, ours, "ConeBeam.forward")

    def device_rows(op_name, theirs_ms, which, arg_d, host_results, what):
        """Ours on CuPy arrays in place (no host copy) against TIGRE's NumPy-only call."""
        if BACKEND != "cuda":
            return
        for m, o in ops.items():
            fn = getattr(o, which)
            ours_ms = pt.Timer(xp).median(lambda fn=fn: fn(arg_d), a.reps)
            got = xp.asnumpy(fn(arg_d))
            same = pt.agreement(np, got, host_results[m][1], "vs ours from NumPy: ")
            add(op_name, theirs_ms, ours_ms, same, f"fdk.{what} (cuda, {PAIR[m]}, CuPy in/out)",
                "ours GPU-resident, TIGRE NumPy in/out (its only way)")

    def atb():
        ms, theirs = wall(lambda: tigre.Atb(proj, g, tang, "matched"), a.reps)
        # TIGRE's "matched" is a voxel-driven gather with Jia et al.'s closed-form weight, which is
        # our B's (tests/python/test_fdk_ct.py): B is the like-for-like row, Aᵀ the exact transpose.
        for which, what in (("back_voxel", "B, {} sampling"), ("back", "exact transpose Aᵀ, {} pair")):
            ours = {}
            for m, o in ops.items():
                ours[m] = wall(lambda o=o: getattr(o, which)(proj), a.reps)
                add("Atb (matched)", ms, ours[m][0], pt.agreement(np, ours[m][1], theirs),
                    f"fdk.ConeBeam.{which} (cuda, {what.format(PAIR[m])}, NumPy in/out)")
            device_rows("Atb (matched)", ms, which, proj_d, ours, f"ConeBeam.{which}")
        ms, theirs = wall(lambda: tigre.Atb(proj, g, tang, "FDK"), a.reps)
        ours_ms, mine = wall(lambda: bp.backproject(proj, P), a.reps)
        add("Atb (FDK weights)", ms, ours_ms, pt.agreement(np, mine, theirs),
            "fdk.Backprojector (cuda, hardware, 1/w^2, NumPy in/out)")
        dev_ms = pt.Timer(xp).median(lambda: bp.backproject(proj_d, P), a.reps)
        add("Atb (FDK weights)", ms, dev_ms, "(the same image)", "fdk.Backprojector (cuda, hardware, CuPy in/out)",
            "ours GPU-resident, TIGRE NumPy in/out (its only way)")

    def fdk():
        ms, theirs = wall(lambda: talg.fdk(proj, g, tang, filter="ram_lak"), a.reps)
        theirs = np.asarray(theirs, dtype=np.float32)
        ours_ms, mine = wall(lambda: ours_fdk(proj), max(1, a.reps // 2))
        ag = pt.agreement(np, mine[m, m, m], theirs[m, m, m], "central 80%: ")
        ag += f"; NRMSE vs phantom: TIGRE {nrm(theirs):.4f}, ours {nrm(mine):.4f}"
        add("FDK (ram_lak)", ms, ours_ms, ag, "fdk.fdk (cuda, hardware, NumPy in/out: host filter)",
            "both filter on the host")
        up_ms, mine = wall(lambda: xp.asnumpy(ours_fdk(xp.asarray(proj))), a.reps)
        add("FDK (ram_lak)", ms, up_ms, f"ours NRMSE vs phantom {nrm(mine):.4f}",
            "fdk.fdk (cuda, hardware, cuFFT; NumPy uploaded and the volume downloaded inside the timing)",
            "TIGRE filters on the host (scipy.fft)")

    def per(fn):
        fn(1)  # warm-up
        t0 = time.perf_counter()
        fn(1)
        t1 = time.perf_counter()
        v = fn(a.iterations + 1)
        t2 = time.perf_counter()
        return ((t2 - t1) - (t1 - t0)) * 1e3 / a.iterations, np.asarray(v, dtype=np.float32)

    def iterative(op_name, theirs_fn, ours_fns, note):
        """TIGRE's iteration once, then each of ours (description -> fn(k)) against it."""
        ms, theirs = per(theirs_fn)
        for desc, ours_fn in ours_fns.items():
            ours_ms, mine = per(ours_fn)
            ag = pt.agreement(np, mine, theirs, f"after {a.iterations + 1}: ")
            ag += f"; NRMSE vs phantom: TIGRE {nrm(theirs):.4f}, ours {nrm(mine):.4f}"
            add(op_name, ms, ours_ms, ag, desc, note)
            note = ""

    def sirt():
        iterative("SIRT, one iteration", lambda k: talg.sirt(proj, g, tang, k, verbose=False),
                  {f"fdk.sirt (cuda, {PAIR[m]}, step 0.5, NumPy in/out)":
                   (lambda k, m=m: tomoraster.fdk.sirt(proj, g_ours, k, backend=BACKEND, interpolation=m))
                   for m in pair},
                  "both non-negative; TIGRE: Siddon Ax, FDK-weighted Atb (its SIRT)")

    def cgls():
        fns = {f"fdk.cgls (cuda, {PAIR[m]} pair, step 0.5, NumPy in/out)":
               (lambda k, m=m: tomoraster.fdk.cgls(proj, g_ours, k, backend=BACKEND, interpolation=m))
               for m in pair}
        fns["fdk.cgls (cuda, B in place of Aᵀ, NumPy in/out)"] = (
            lambda k: tomoraster.fdk.cgls(proj, g_ours, k, backend=BACKEND, backprojector="voxel"))
        iterative("CGLS, one iteration", lambda k: talg.cgls(proj, g, tang, k, verbose=False), fns,
                  "TIGRE: Siddon Ax, matched Atb (its CGLS)")

    for name, fn in (("Ax", ax), ("Atb", atb), ("FDK", fdk), ("SIRT", sirt), ("CGLS", cgls)):
        if name.lower() in a.steps:
            section(name, fn)
    print(pt.markdown(rows_out))
    return []  # every row is in the table already


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    geometry_arguments(p)
    p.add_argument("--iterations", type=int, default=3, help="K: one iteration = (t(K+1) - t(1)) / K")
    p.add_argument("--steps", default="ax,atb,fdk,sirt,cgls")
    p.add_argument("--tigre-version", default="3.1.3+git", help="the version the row names when TIGRE has none")
    p.add_argument("--out", default="peers.json")
    p.add_argument("--md", default="peers.md")
    a = p.parse_args(argv)
    a.steps = a.steps.split(",")
    rows = []
    pt.guarded(rows, lambda: run(a), "TIGRE", a.tigre_version, "all", f"{a.L}^3", "-")
    if rows:  # a failure before or between the rows run() writes itself
        pt.append(a.out, a.md, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
