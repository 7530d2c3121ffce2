"""GAPAT (Taichi; delay-and-sum and universal back-projection on the GPU) beside our oat FBP on
the same data, one process, one GPU; rows go to the peers table (peers_table.py).

Scene: our paper-sized oat scene (scenes/oat_paper.toml: 128×128×160 voxels of 0.2 mm, 128 × 256
point transducers on a 65 mm sphere, 20 MHz, c0 1.5 mm/µs, no EIR; --rings/--views for its
subsets), the data its analytic simulation of the blurred spheres (tomoraster.oat.acquire, 40 dB
noise), the time axis set explicitly (oat.t_min_us, oat.samples) so GAPAT's delay is a whole
number of samples (its `delay` = t_min·fs). GAPAT gets the same data (float32, (Q, K)), the
transducer positions (mm) with normals pointing at the centre, the grid as voxel-centre ranges
(x_start + i·res, ours' centres) and vs, fs in mm/µs and MHz; its image (x, y, z) is transposed
to ours (z, y, x).

Taichi falls back to the CPU silently: ti.init is called once here with arch=ti.cuda and the
kernel profiler on, the arch Taichi reports is checked (the rows are refused otherwise), and
GAPAT's own ti.init calls are made no-ops so each recon() compiles from Taichi's cache but does
not restart the runtime. Times: the kernel time from Taichi's profiler (what GAPAT's ≈ 2.5·10¹¹
voxel·transducer updates/s measures) and the wall clock of a whole recon() call (NumPy in and
out, its uploads), each the median of --reps after a first call (JIT); ours oat.Fbp.reconstruct
on CuPy float32 (CUDA events). Updates/s = voxels × transducers / time. Agreement: each image's
correlation with the phantom (also on the same scene without noise, not timed), and GAPAT's
against ours (c fitted).

  python3 bench/peers/gapat_peer.py --out peers.json --md peers.md
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

BACKEND = os.environ.get("PEERS_OURS_BACKEND", "cuda")


def positions(rings, views, radius):
    """Our scene's transducers (compute/oat/geometry.cpp set_rings_views), q = ring·views + view."""
    th = (np.arange(rings) + 0.5) * np.pi / rings
    ph = np.arange(views) * 2 * np.pi / views
    T, P = np.meshgrid(th, ph, indexing="ij")
    return np.stack([radius * np.sin(T) * np.cos(P), radius * np.sin(T) * np.sin(P), radius * np.cos(T)],
                    axis=-1).reshape(-1, 3)


def corr(a, b):
    return pt.fit_scale(np, a, b)[2]


def run(a):
    import cupy as xp
    import tomoraster
    getattr(tomoraster, "quiet", lambda: None)()
    gpu = pt.gpu_name(xp)
    sets = {"oat.rings": a.rings, "oat.views": a.views, "oat.t_min_us": a.t_min_us, "oat.samples": a.samples,
            "oat.eir.kind": "none"}
    u, phantom, pos = tomoraster.oat.acquire(a.scene, set=sets)
    mine_pos = positions(a.rings, a.views, a.radius_mm)
    print(f"positions: acquire's vs the formula here: max {np.abs(pos - mine_pos).max():.2e} mm")
    Q, K = u.shape
    nz, ny, nx = phantom.shape
    vox = nx * ny * nz
    size = f"{nx}x{ny}x{nz} voxels, {a.rings}x{a.views} transducers x {K} samples"
    per_s = lambda ms: vox * Q / (ms * 1e-3)  # noqa: E731
    fbp = tomoraster.oat.Fbp(a.scene, backend=BACKEND, set=sets)
    u_d = xp.asarray(u, dtype=xp.float64 if BACKEND == "cpu" else xp.float32)  # cpu: NumPy under CuPy's names
    timer = pt.Timer(xp)
    ours_ms = timer.median(lambda: fbp.reconstruct(u_d, deconvolve=False), a.reps)
    ours = xp.asnumpy(timer.last)
    # The same scene without noise (not timed): how much of each image's error is the noise.
    u_clean, _, _ = tomoraster.oat.acquire(a.scene, set={**sets, "oat.noise.snr_db": 1e300})
    clean_f32 = np.ascontiguousarray(u_clean, dtype=np.float32)
    ours_clean = xp.asnumpy(fbp.reconstruct(xp.asarray(u_clean, dtype=u_d.dtype), deconvolve=False))
    ours_note = (f"ours {per_s(ours_ms):.3g} updates/s; r(ours, phantom) {corr(phantom, ours):.4f} "
                 f"({corr(phantom, ours_clean):.4f} without noise)")
    rows = []
    try:
        import taichi as ti
        import gapat
        import gapat.algorithms as ga
    except Exception as e:  # noqa: BLE001
        note = f"GAPAT not run: import failed: {type(e).__name__}: {e}"
        print(note)
        rows.append(pt.row("GAPAT", "-", "DAS / UBP", size, gpu, None, ours_ms, ours_note, "oat.Fbp (cuda)", note))
        return rows
    version = getattr(gapat, "__version__", None) or a.gapat_version
    real_init = ti.init
    smoke = BACKEND == "cpu"  # a plumbing check without a GPU: Taichi's CPU accepted
    real_init(arch=ti.cpu if smoke else ti.cuda, kernel_profiler=True, offline_cache=True)
    arch = str(ti.lang.impl.current_cfg().arch)
    print(f"Taichi {ti.__version__}: arch after ti.init(arch=ti.cuda): {arch}")
    if "cuda" not in arch and not smoke:
        note = f"GAPAT not run: Taichi runs on {arch}, not CUDA (its silent CPU fallback)"
        rows.append(pt.row("GAPAT", version, "DAS / UBP", size, gpu, None, ours_ms, ours_note, "oat.Fbp (cuda)", note))
        return rows
    ti.init = lambda *args, **kw: None  # GAPAT's recon_single re-initialises on every call
    ga.ti.init = ti.init
    res = a.voxel_mm
    start = [-(n - 1) / 2 * res for n in (nx, ny, nz)]
    rng = [[s, s + n * res] for s, n in zip(start, (nx, ny, nz))]
    loc = np.ascontiguousarray(pos, dtype=np.float32)
    normal = np.ascontiguousarray(-pos / np.linalg.norm(pos, axis=1, keepdims=True), dtype=np.float32)
    sig = np.ascontiguousarray(u, dtype=np.float32)
    delay = int(round(a.t_min_us * a.fs_mhz))
    for method in ("das", "ubp"):
        call = lambda: ga.recon_single(sig, loc, normal, rng[0], rng[1], rng[2], res, a.c0,  # noqa: E731
                                       a.fs_mhz, delay=delay, method=method, device="gpu")
        t0 = time.perf_counter()
        call()
        first_ms = (time.perf_counter() - t0) * 1e3
        walls, kernels, img = [], [], None
        for _ in range(a.reps):
            ti.sync()
            ti.profiler.clear_kernel_profiler_info()
            t0 = time.perf_counter()
            img = call()
            ti.sync()
            walls.append((time.perf_counter() - t0) * 1e3)
            kernels.append(ti.profiler.get_kernel_profiler_total_time() * 1e3)
        wall_ms, kern_ms = statistics.median(walls), statistics.median(kernels)
        theirs = np.asarray(img).transpose(2, 1, 0)
        clean = np.asarray(ga.recon_single(clean_f32, loc, normal, rng[0], rng[1], rng[2], res, a.c0, a.fs_mhz,
                                           delay=delay, method=method, device="gpu")).transpose(2, 1, 0)
        ag = (f"r(GAPAT, phantom) {corr(phantom, theirs):.4f} ({corr(phantom, clean):.4f} without noise), "
              f"{ours_note}; vs ours: " + pt.agreement(np, ours, theirs))
        rows.append(pt.row("GAPAT", version, f"{method.upper()} (Taichi kernel)", size, gpu, kern_ms, ours_ms, ag,
                           "oat.Fbp.reconstruct (cuda, CuPy in/out)",
                           f"GAPAT {per_s(kern_ms):.3g} updates/s (kernel, Taichi profiler, {arch}); "
                           f"first call with JIT {first_ms:.0f} ms"))
        rows.append(pt.row("GAPAT", version, f"{method.upper()} (whole recon() call)", size, gpu, wall_ms, ours_ms,
                           "(the same image)", "oat.Fbp.reconstruct (cuda, CuPy in/out)",
                           "GAPAT NumPy in/out (its interface), with its kernel set-up from Taichi's cache"))
    ti.init = real_init
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scene", default="oat_paper.toml", help="an embedded scene's file name or a path")
    p.add_argument("--rings", type=int, default=128)
    p.add_argument("--views", type=int, default=256)
    p.add_argument("--t-min-us", type=float, default=33.5, help="time of sample 0 (a whole number of samples)")
    p.add_argument("--samples", type=int, default=400)
    p.add_argument("--fs-mhz", type=float, default=20.0)
    p.add_argument("--c0", type=float, default=1.5)
    p.add_argument("--voxel-mm", type=float, default=0.2)
    p.add_argument("--radius-mm", type=float, default=65.0)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--gapat-version", default="1.2.0")
    p.add_argument("--out", default="peers.json")
    p.add_argument("--md", default="peers.md")
    a = p.parse_args(argv)
    rows = []
    pt.guarded(rows, lambda: run(a), "GAPAT", a.gapat_version, "DAS / UBP", "oat_paper", "-")
    pt.append(a.out, a.md, rows)
    print(pt.markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
