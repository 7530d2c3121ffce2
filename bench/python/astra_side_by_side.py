"""Our cuda fdk back-projection beside ASTRA's BP3D_CUDA in one Python process.

RabbitCT geometry (496 projections of 1248×960 at 0.32 mm, our 3×4 matrices; ASTRA gets the same
views as cone_vec rows derived from them, rabbit_geometry.py), one analytic projection stack on
the GPU (CuPy), both back-projectors on GPU-resident arrays (ASTRA through DLPack in
astra.experimental.direct_BP3D; ours through tomoraster.fdk.Backprojector(backend="cuda")),
timed with CUDA events (warm-up, median of --reps), at 512³ and 1024³. The volumes are compared
after ASTRA's constant weight factor is taken out (conventions in rabbit_geometry.astra_scale).

  PYTHONPATH=/tmp/astra/site:... python3 bench/python/astra_side_by_side.py --json out.json
  python3 bench/python/astra_side_by_side.py --small     # here: cpu backend, NumPy, no ASTRA
  python3 bench/python/astra_side_by_side.py --projector --bench build/bench/bench_fdk
      # FP3D/BP3D/SIRT3D/CGLS3D_CUDA beside our projector pair and iterations (astra_iterative.py)

Without ASTRA (import fails, or no CUDA for it) the ASTRA columns say why and ours are timed alone.
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
import astra_iterative  # noqa: E402
import rabbit_geometry as geo  # noqa: E402

# Measured on one H200 (docs/fdk.md): ASTRA 2.5 BP3D_CUDA, GPU-resident arrays; our bench_fdk.
REFERENCE_MS = {512: {"astra": 150.0, "bench_fdk": 91.0}, 1024: {"astra": 1121.0, "bench_fdk": 582.0}}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", default="512,1024", help="volume sizes L (L³ voxels over 256 mm)")
    p.add_argument("--projections", type=int, default=496)
    p.add_argument("--detector", default="1248x960", help="columns x rows")
    p.add_argument("--pixel-mm", type=float, default=0.32)
    p.add_argument("--reps", type=int, default=5, help="timed runs after one warm-up (median kept)")
    p.add_argument("--backend", default="cuda", help="our back-projector's backend")
    p.add_argument("--interpolation", default="hardware,exact",
                   help="ours: hardware (texture unit, as ASTRA and bench_fdk) and/or exact")
    p.add_argument("--no-astra", action="store_true", help="time ours alone")
    p.add_argument("--small", action="store_true",
                   help="CPU check: L=32, 62 views of 156x120 at 2.56 mm, cpu backend, NumPy, 1 rep, "
                        "ASTRA's rule in NumPy in place of ASTRA when ASTRA cannot run")
    p.add_argument("--json", help="write the results here")
    astra_iterative.add_args(p)
    a = p.parse_args(argv)
    if a.small:
        a.sizes, a.projections, a.detector, a.pixel_mm = "32", 62, "156x120", 2.56
        a.backend, a.reps = "cpu", 1
    a.sizes = [int(s) for s in a.sizes.split(",") if s]
    a.cols, a.rows = (int(t) for t in a.detector.lower().split("x"))
    a.interpolation = [m for m in a.interpolation.split(",") if m]
    return a


def array_module(small: bool):
    """CuPy on the GPU machine; NumPy for --small or where CuPy is missing."""
    if small:
        return np, None
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
        return cupy, None
    except Exception as e:  # noqa: BLE001  (no CuPy, no driver, no device)
        return np, f"CuPy unusable ({type(e).__name__}: {e})"


def load_astra(skip: bool, xp):
    """(astra module or None, why not). ASTRA's 3D projectors are CUDA-only."""
    if skip:
        return None, "--no-astra"
    try:
        import astra
        import astra.experimental  # noqa: F401
    except Exception as e:  # noqa: BLE001
        return None, f"import astra failed ({type(e).__name__}: {e})"
    if xp is np:
        return None, "no GPU arrays (CuPy) in this run"
    if not astra.use_cuda():
        return None, "astra.use_cuda() is False (no CUDA device for ASTRA's CUDA 12 runtime)"
    return astra, None


class Timer:
    """Milliseconds of fn(): CUDA events on the current stream around it when on the GPU (ASTRA
    and ours synchronise before returning, so the events bracket their work) and the wall clock
    after a device synchronisation; on the CPU the wall clock alone."""

    def __init__(self, xp):
        self.gpu = xp is not np
        self.xp = xp

    def __call__(self, fn):
        if not self.gpu:
            t0 = time.perf_counter()
            out = fn()
            return out, (time.perf_counter() - t0) * 1e3, None
        cp = self.xp
        cp.cuda.Device().synchronize()
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        t0 = time.perf_counter()
        start.record()
        out = fn()
        stop.record()
        stop.synchronize()
        cp.cuda.Device().synchronize()
        wall = (time.perf_counter() - t0) * 1e3
        return out, cp.cuda.get_elapsed_time(start, stop), wall


def timed(timer, fn, reps):
    """One warm-up, then `reps` runs: (last result, median event ms, median wall ms, all event ms)."""
    out, _, _ = timer(fn)
    ev, wall = [], []
    for _ in range(reps):
        del out
        out, e, w = timer(fn)
        ev.append(e)
        wall.append(w if w is not None else e)
    return out, statistics.median(ev), statistics.median(wall), ev


def ours_call(tomoraster, xp, L, voxel, origin, backend, interpolation, proj, mats):
    """A zero-argument call of our back-projector and how its arrays go in: CuPy in place into a
    preallocated CuPy volume (out=, as ASTRA's direct_BP3D writes into one), else CuPy in and a
    new CuPy volume out, else (a module without GPU arrays) one host copy made up front."""
    bp = tomoraster.fdk.Backprojector([L] * 3, [voxel] * 3, [origin] * 3, backend=backend,
                                      interpolation=interpolation)
    desc = getattr(bp, "backend", backend)
    if xp is np:
        return (lambda: bp.backproject(proj, mats)), "numpy", desc
    vol = xp.empty((L, L, L), dtype=xp.float32)
    errors = []
    for name, call in (("cupy in place, into a preallocated cupy volume (out=)",
                        lambda: bp.backproject(proj, mats, out=vol)),
                       ("cupy projections, numpy matrices", lambda: bp.backproject(proj, mats)),
                       ("cupy projections, cupy matrices", lambda: bp.backproject(proj, xp.asarray(mats)))):
        try:
            call()  # also the first (warm-up) call
            return call, name, desc
        except (TypeError, ValueError) as e:
            errors.append(f"{name}: {e}")
    del vol
    host = xp.asnumpy(proj)
    note = "host round trip (GPU arrays refused: " + "; ".join(errors) + ")"
    return (lambda: bp.backproject(host, mats)), note, desc


def astra_call(astra, xp, L, vecs, proj_astra):
    """A zero-argument BP3D_CUDA into a preallocated GPU volume, both linked through DLPack
    (astra.experimental.direct_BP3D; GPULink pointers if this ASTRA wants those)."""
    h = 128.0  # the RabbitCT volume: a 256 mm cube centred on the isocentre
    vol_geom = astra.create_vol_geom(L, L, L, -h, h, -h, h, -h, h)
    proj_geom = astra.create_proj_geom("cone_vec", proj_astra.shape[0], proj_astra.shape[2], vecs)
    pid = astra.create_projector("cuda3d", proj_geom, vol_geom)
    vol = xp.zeros((L, L, L), dtype=xp.float32)
    link = "DLPack (CuPy arrays)"
    try:
        astra.experimental.direct_BP3D(pid, vol, proj_astra)
    except Exception as e:  # noqa: BLE001  (an ASTRA that takes no DLPack: raw pointers instead)
        GPULink = astra.data3d.GPULink
        vol_l = GPULink(vol.data.ptr, L, L, L, L * 4)
        r, n, c = proj_astra.shape
        proj_l = GPULink(proj_astra.data.ptr, c, n, r, c * 4)
        astra.experimental.direct_BP3D(pid, vol_l, proj_l)
        link = f"GPULink (raw pointers; DLPack refused: {type(e).__name__}: {e})"

        def run_linked():
            astra.experimental.direct_BP3D(pid, vol_l, proj_l)
            return vol
        return run_linked, link, pid

    def run():
        astra.experimental.direct_BP3D(pid, vol, proj_astra)
        return vol
    return run, link, pid


def compare(xp, ours, theirs, c_pred):
    """ASTRA vs ours: the fitted constant c (least squares, theirs ≈ c·ours), relative L2 after
    dividing by the fitted and by the predicted c, and the best of the flips as a diagnostic
    (a flip winning would mean an axis convention is wrong). Sums in float64, no float64 copies
    of the (up to 4 GiB) volumes."""
    o = xp.asarray(ours, dtype=xp.float32)
    t = xp.asarray(theirs, dtype=xp.float32)
    oo = float((o * o).sum(dtype=xp.float64))

    def rel_l2(tt, c):
        d = tt / c - o
        return float(xp.sqrt((d * d).sum(dtype=xp.float64) / oo))

    def fit(tt):
        c = float((o * tt).sum(dtype=xp.float64)) / oo
        return c, rel_l2(tt, c)

    c_fit, rel = fit(t)
    out = {"scale_fit": c_fit, "scale_predicted": c_pred, "rel_l2_fit": rel, "rel_l2_predicted": rel_l2(t, c_pred)}
    if rel > 1e-2:  # something is off: which flip would have matched?
        flips = {"x": (2,), "y": (1,), "z": (0,), "xy": (1, 2), "xz": (0, 2), "yz": (0, 1)}
        scores = {k: fit(xp.flip(t, axis=ax))[1] for k, ax in flips.items()}
        best = min(scores, key=scores.get)
        out["flip_diagnostic"] = {"best_flip": best, "rel_l2": scores[best]}
    return out


def run_size(a, ctx, L):
    """Times ours (each interpolation) and ASTRA at L³; returns the row of the table."""
    xp, timer = ctx["xp"], ctx["timer"]
    voxel = 256.0 / L
    origin = -0.5 * voxel * (L - 1)  # RabbitCT's O_L: the centre of voxel 0 (ASTRA: window −128…128)
    c_pred = geo.astra_scale(voxel, a.pixel_mm)
    row = {"L": L, "voxel_mm": voxel, "ours": {}}
    vols = {}
    if ctx["tomoraster"] is not None:
        for mode in a.interpolation:
            try:
                fn, how, desc = ours_call(ctx["tomoraster"], xp, L, voxel, origin, a.backend, mode, ctx["proj"],
                                          ctx["P"])
                vols[mode], ms, wall, runs = timed(timer, fn, a.reps)
            except Exception as e:  # noqa: BLE001  (one failed case must not cost the others)
                row["ours"][mode] = {"error": f"{type(e).__name__}: {e}"}
                print(f"  L={L} ours ({mode}) failed: {type(e).__name__}: {e}", flush=True)
                continue
            row["ours"][mode] = {"ms": ms, "wall_ms": wall, "runs_ms": runs, "arrays": how, "backend": desc}
            print(f"  L={L} ours {desc} ({mode}): {ms:.1f} ms (wall {wall:.1f} ms; {how})", flush=True)
    ref_mode = next(iter(vols), None)
    astra = ctx["astra"]
    if astra is not None:
        try:
            fn, link, pid = astra_call(astra, xp, L, ctx["vecs"], ctx["proj_astra"])
            theirs, ms, wall, runs = timed(timer, fn, a.reps)
            astra.projector3d.delete(pid)
        except Exception as e:  # noqa: BLE001
            row["astra"] = {"error": f"{type(e).__name__}: {e}"}
            print(f"  L={L} ASTRA BP3D_CUDA failed: {type(e).__name__}: {e}", flush=True)
            theirs = None
        if theirs is not None:
            row["astra"] = {"ms": ms, "wall_ms": wall, "runs_ms": runs, "arrays": link}
            print(f"  L={L} ASTRA BP3D_CUDA: {ms:.1f} ms (wall {wall:.1f} ms; {link})", flush=True)
            if ref_mode:
                row["agreement"] = dict(compare(xp, vols[ref_mode], theirs, c_pred), against=ref_mode)
        del theirs
    elif a.small and ref_mode:
        # No ASTRA here: its rule, as documented, in NumPy checks the cone_vec rows and the scale.
        model = geo.astra_rule_bp(np.asarray(ctx["proj_astra"]), ctx["vecs"], L, voxel, a.pixel_mm)
        row["agreement"] = dict(compare(np, vols[ref_mode], model, c_pred), against=ref_mode,
                                what="ASTRA's BP rule in NumPy (not ASTRA)")
    vols.clear()
    if xp is not np:
        xp.get_default_memory_pool().free_all_blocks()
    return row


def print_table(a, rows, astra_note):
    modes = a.interpolation
    head = f"{'L':>5} | {'ASTRA BP3D_CUDA ms':>18} | " + " | ".join(f"{'ours ' + m + ' ms':>18}" for m in modes)
    head += f" | {'ASTRA/ours':>10} | {'rel L2 (c fit)':>14} | {'c fit / c pred':>16}"
    print(head)
    print("-" * len(head))
    for r in rows:
        astra_ms = r.get("astra", {}).get("ms")
        cells = [f"{r['L']:>5}", f"{astra_ms:>18.1f}" if astra_ms else f"{'-':>18}"]
        cells += [f"{r['ours'][m]['ms']:>18.1f}" if "ms" in r["ours"].get(m, {}) else f"{'-':>18}" for m in modes]
        first = r["ours"].get(modes[0], {}).get("ms") if modes else None
        ratio = f"{astra_ms / first:>9.2f}x" if astra_ms and first else f"{'-':>10}"
        ag = r.get("agreement")
        cells += [ratio, f"{ag['rel_l2_fit']:>14.2e}" if ag else f"{'-':>14}",
                  f"{ag['scale_fit']:>7.4g} / {ag['scale_predicted']:<7.4g}" if ag else f"{'-':>16}"]
        print(" | ".join(cells))
        if ag and "what" in ag:
            print(f"      agreement measured against {ag['what']}")
        if ag and "flip_diagnostic" in ag:
            print(f"      agreement poor: flipping ASTRA's volume along {ag['flip_diagnostic']['best_flip']} gives "
                  f"rel L2 {ag['flip_diagnostic']['rel_l2']:.2e}")
    if astra_note:
        print(f"ASTRA not run: {astra_note}")
    print("ratio = ASTRA time / ours (" + (modes[0] if modes else "-") + "); median of "
          f"{a.reps} runs after a warm-up, CUDA events; c = ASTRA's constant weight over ours "
          "(rabbit_geometry.astra_scale)")
    for L in sorted(set(REFERENCE_MS) & {r["L"] for r in rows}):
        ref = REFERENCE_MS[L]
        print(f"reference on one H200 at {L}^3: ASTRA 2.5 {ref['astra']:.0f} ms, our bench_fdk {ref['bench_fdk']:.0f} ms")


def astra_geometry_check(P, vecs, a):
    """Rows of a few points as ASTRA's own geometry code projects them (CPU; runs wherever
    `import astra` works) vs ours; None without ASTRA. Exits on a disagreement."""
    try:
        import astra
        import astra.experimental  # noqa: F401
    except Exception:  # noqa: BLE001  (reported by load_astra)
        return None
    if not hasattr(astra.experimental, "getProjectedBBox"):
        return None
    err = geo.check_with_astra(astra, P, vecs, a.cols, a.rows)
    print(f"geometry: ASTRA's getProjectedBBox on the cone_vec rows vs our matrices (rows): max {err:.1e} px")
    if err > 1e-3:
        sys.exit(f"astra_side_by_side: ASTRA projects points {err} px away from our matrices")
    return err


def setup(a):
    """Arrays, geometry and the two back-projectors' modules; prints what was found."""
    xp, xp_note = array_module(a.small)
    if xp_note:
        print(xp_note)
        sys.exit("astra_side_by_side: full sizes need a GPU and CuPy; use --small on a CPU")
    try:
        import tomoraster
        getattr(tomoraster, "quiet", lambda: None)()
        tomo_note = f"tomoraster {tomoraster.__version__} from {os.path.dirname(tomoraster.__file__)}"
    except Exception as e:  # noqa: BLE001
        tomoraster, tomo_note = None, f"import tomoraster failed ({type(e).__name__}: {e}): ASTRA alone"
    astra, astra_note = load_astra(a.no_astra, xp)
    print(tomo_note)
    print(f"ASTRA {astra.__version__} from {os.path.dirname(astra.__file__)}" if astra else f"ASTRA: {astra_note}")
    P = geo.rabbitct_matrices(a.projections, a.cols, a.rows, a.pixel_mm)
    vecs = geo.cone_vec_from_matrices(P, a.cols, a.rows, a.pixel_mm)
    err = geo.check_geometry(P, vecs, a.cols, a.rows)
    print(f"geometry: {a.projections} views of {a.cols}x{a.rows} at {a.pixel_mm} mm; cone_vec vs our matrices "
          f"on 30 points: max {err:.1e} px")
    if err > 1e-6:
        sys.exit(f"astra_side_by_side: cone_vec rows disagree with the matrices by {err} px")
    astra_err = astra_geometry_check(P, vecs, a)
    t0 = time.perf_counter()
    proj = geo.ball_projections(xp, vecs, a.cols, a.rows)  # (n, rows, cols): ours
    proj_astra = xp.ascontiguousarray(proj.transpose(1, 0, 2))  # (rows, n, cols): ASTRA's layout
    print(f"projections: analytic balls, {proj.nbytes / 2**30:.2f} GiB on the "
          f"{'GPU' if xp is not np else 'host'} (+ ASTRA's transposed copy), {time.perf_counter() - t0:.1f} s")
    device = "cpu"
    if xp is not np:
        device = xp.cuda.runtime.getDeviceProperties(xp.cuda.Device().id)["name"].decode()
        device += f" (CuPy {getattr(xp, '__version__', '?')})"
    ctx = dict(xp=xp, timer=Timer(xp), tomoraster=tomoraster, astra=astra, P=P, vecs=vecs, proj=proj,
               proj_astra=proj_astra)
    info = dict(device=device, arrays="cupy" if xp is not np else "numpy", tomoraster=tomo_note,
                astra=(astra.__version__ if astra else None), astra_not_run=astra_note, geometry_max_px=err,
                astra_geometry_max_px=astra_err)
    return ctx, info


def main(argv=None):
    a = parse_args(argv)
    if a.projector:
        return astra_iterative.main(a)
    ctx, info = setup(a)
    rows = [run_size(a, ctx, L) for L in a.sizes]
    print()
    print(f"ASTRA side by side on {info['device']}: RabbitCT geometry, {a.projections} projections of "
          f"{a.cols}x{a.rows}, the same projection stack")
    print_table(a, rows, info["astra_not_run"])
    if a.json:
        doc = dict(info, projections=a.projections, detector=[a.cols, a.rows], pixel_mm=a.pixel_mm, reps=a.reps,
                   backend=a.backend, rows=rows, reference_h200_ms=REFERENCE_MS,
                   conventions=CONVENTIONS)
        tmp = a.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump(doc, f, indent=2)
        os.replace(tmp, a.json)
        print(f"wrote {a.json}")
    return 0


CONVENTIONS = [
    "projections: ours (n, rows, cols), ASTRA (rows, n, cols); the same values, ASTRA's copy made before timing",
    "volume: both (z, y, x), voxel centres at -128 + (i + 0.5)*256/L mm (RabbitCT's O_L + i*R_L)",
    "detector: ours pixel centres at integer (u, v); ASTRA's cone_vec centre d at ((cols-1)/2, (rows-1)/2)",
    "weight: ours 1/w^2 = (D_si/t)^2 (RabbitCT); ASTRA's BP is its FP's adjoint, V*(D_sd/t)^2/a, "
    "a constant c = V*D_sd^2/(a*D_si^2) times ours (V voxel volume, a pixel area)",
    "interpolation: ASTRA's texture unit (8-bit weights), ours 'hardware' the same, 'exact' fp32 weights",
    "outside the detector: both read 0",
    "timing: ASTRA's call copies the projections into a CUDA array and back-projects; ours likewise "
    "uploads to its texture inside the call",
]

if __name__ == "__main__":
    sys.exit(main())
