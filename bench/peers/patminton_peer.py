"""patminton (model-based 3-D photoacoustic forward/adjoint on the GPU, PyTorch float64 tensors)
beside our oat interpolation model H and its exact transpose Hᵀ, one process, one GPU; rows go
to the peers table (peers_table.py).

Scene: our paper-sized oat scene (scenes/oat_paper.toml: 128×128×160 voxels of 0.2 mm, point
transducers on a 65 mm sphere, 20 MHz, c0 1.5 mm/µs, no EIR) with --sizes rings × views transducers
(one of the scene's undersampled subsets, 16 × 32, and its full 128 × 256) and an
explicit time axis (oat.t_min_us, oat.samples) handed to both. patminton's "points" mode: one
point sensor of unit area per transducer at the same position (metres, relative to the grid
centre), voxel centres at −L + (i + ½)·d as ours, its image (Nx, Ny, Nz) x-major (ours (z, y, x):
transposed), no laser pulse (laser_pulse_variance 0), no EIR, upsample 11.

The models differ: ours is [Wang2013]'s interpolation model (spherical-shell integrals of the
trilinear image, then the time derivative D), patminton's a radial basis function per voxel
whose pressure is convolved on an upsampled time axis. So c is fitted, and the agreement is given
against patminton's signals and against their time derivative (whichever matches ours reads
off the convention); r is the Pearson correlation. Times: wall clock after a device
synchronisation around each product (median of --reps after a warm-up), ours on float32 CUDA
tensors (PyTorch, through DLPack into our package), theirs on float64 (its only type).

  python3 bench/peers/patminton_peer.py --sizes 16x32,128x256 --out peers.json --md peers.md
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


def timed(torch, fn, reps, warmup=1):
    """(median ms, last result), the device synchronised before and after each call."""
    out, ms = None, []
    for k in range(warmup + reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        out = fn()
        torch.cuda.synchronize()
        if k >= warmup:
            ms.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ms), out


def best_agreement(ours, theirs, dt_us):
    """The agreement line against theirs and against d/dt of theirs (per transducer row)."""
    direct = pt.fit_scale(np, ours, theirs)
    deriv = pt.fit_scale(np, ours, np.gradient(theirs, dt_us, axis=-1))
    return (f"vs theirs: c={direct[0]:.4g}, rel L2 {direct[1]:.2e}, r={direct[2]:.4f}; "
            f"vs d/dt of theirs: c={deriv[0]:.4g}, rel L2 {deriv[1]:.2e}, r={deriv[2]:.4f}")


def emit(a, rows, r):
    """A row into the table at once (an error inside patminton's library ends the process)."""
    rows.append(r)
    pt.append(a.out, a.md, [r])


def run(a):
    for size in a.sizes.split(","):
        rings, views = (int(v) for v in size.split("x"))
        run_one(a, rings, views)
    return []  # every row is in the table already


def run_one(a, rings, views):
    import torch
    import tomoraster
    getattr(tomoraster, "quiet", lambda: None)()
    dev = torch.device("cuda")
    gpu = torch.cuda.get_device_name(0)
    sets = {"oat.rings": rings, "oat.views": views, "oat.t_min_us": a.t_min_us, "oat.samples": a.samples,
            "oat.eir.kind": "none"}
    scene = a.scene
    _, phantom, pos = tomoraster.oat.acquire(scene, set=sets)
    model = tomoraster.oat.Model(scene, backend=BACKEND, set=sets)
    nz, ny, nx = model.image_shape
    Q, K = model.data_shape
    voxel = a.voxel_mm
    size = f"{nx}x{ny}x{nz} voxels of {voxel} mm, {rings}x{views} transducers x {K} samples"
    centre = pos.mean(axis=0)
    print(f"oat scene {scene}: image {model.image_shape}, data {model.data_shape}, transducer centre {centre} mm")
    alpha = torch.as_tensor(np.ascontiguousarray(phantom, dtype=np.float32), device=dev)
    ours_fwd_ms, u = timed(torch, lambda: model.forward(alpha), a.reps)
    ours_adj_ms, back = timed(torch, lambda: model.adjoint(u), a.reps)
    u_h, back_h = u.cpu().numpy().astype(np.float64), back.cpu().numpy().astype(np.float64)
    print(f"ours: H {ours_fwd_ms:.2f} ms, H^T {ours_adj_ms:.2f} ms ({size})", flush=True)
    rows = []
    try:
        import patminton
        from patminton import PAT
        version = getattr(patminton, "__version__", None) or a.patminton_version
    except Exception as e:  # noqa: BLE001
        note = f"patminton not run: import failed: {type(e).__name__}: {e}"
        print(note)
        rows.append(pt.row("patminton", "-", "forward A p", size, gpu, None, ours_fwd_ms, "", "oat.Model.forward", note))
        rows.append(pt.row("patminton", "-", "adjoint A^T s", size, gpu, None, ours_adj_ms, "", "oat.Model.adjoint",
                           note))
        pt.append(a.out, a.md, rows)
        return
    loc = np.ascontiguousarray(((pos - centre) * 1e-3).reshape(Q, 1, 3), dtype=np.float64)
    area = np.ones((Q, 1), dtype=np.float64)
    dt_us = 1.0 / a.fs_mhz
    t0 = time.perf_counter()
    pat = PAT(nx, ny, nz, nx * voxel * 0.5e-3, ny * voxel * 0.5e-3, nz * voxel * 0.5e-3, nT=K,
              tStart=a.t_min_us * 1e-6, dt=dt_us * 1e-6, c=a.c0 * 1e3, mode="points", locPoints=loc, area=area,
              upsample=a.upsample, laser_pulse_variance=0.0, eir=None)
    setup_ms = (time.perf_counter() - t0) * 1e3
    p = torch.as_tensor(np.ascontiguousarray(phantom.transpose(2, 1, 0)), dtype=torch.float64, device=dev)
    s = torch.zeros((Q, K), dtype=torch.float64, device=dev)
    fwd_ms, _ = timed(torch, lambda: pat.PMV(p, s), a.reps)
    theirs_u = s.cpu().numpy()
    ag = best_agreement(u_h, theirs_u, dt_us)
    emit(a, rows, pt.row("patminton", version, "forward A p (points)", size, gpu, fwd_ms, ours_fwd_ms, ag,
                       "oat.Model.forward (cuda, interpolation model, float32)",
                       f"theirs float64; its set-up {setup_ms:.0f} ms (not timed)"))
    s_in = torch.as_tensor(u_h, dtype=torch.float64, device=dev)
    pb = torch.zeros((nx, ny, nz), dtype=torch.float64, device=dev)
    adj_ms, _ = timed(torch, lambda: pat.PMVT(pb, s_in), a.reps)
    theirs_b = pb.cpu().numpy().transpose(2, 1, 0)
    c, rel, r = pt.fit_scale(np, back_h, theirs_b)
    emit(a, rows, pt.row("patminton", version, "adjoint A^T s (points)", size, gpu, adj_ms, ours_adj_ms,
                       f"of our H alpha: c={c:.4g}, rel L2 {rel:.2e}, r={r:.4f}",
                       "oat.Model.adjoint (cuda, exact transpose, float32)", "theirs float64"))
    # Each side's own pair: <A p, s> = <p, A^T s> (its adjointness, on its own data).
    lhs = float((s * s_in).sum())
    rhs = float((p * pb).sum())
    print(f"patminton <Ap, s> = {lhs:.6e}, <p, A^T s> = {rhs:.6e} (rel {abs(lhs - rhs) / abs(lhs):.1e})")
    print(pt.markdown(rows))
    del pat, p, s, s_in, pb, alpha, u, back
    torch.cuda.empty_cache()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scene", default="oat_paper.toml", help="an embedded scene's file name or a path")
    p.add_argument("--sizes", default="16x32,128x256",
                   help="rings x views of each run, comma-separated (128x256: the scene's full set)")
    p.add_argument("--t-min-us", type=float, default=33.5, help="time of sample 0 (covers the 12.8 mm ball)")
    p.add_argument("--samples", type=int, default=400)
    p.add_argument("--fs-mhz", type=float, default=20.0, help="the scene's oat.fs_mhz")
    p.add_argument("--c0", type=float, default=1.5, help="the scene's oat.c0_mm_per_us")
    p.add_argument("--voxel-mm", type=float, default=0.2, help="the scene's oat.voxel_mm")
    p.add_argument("--upsample", type=int, default=11)
    p.add_argument("--reps", type=int, default=2)
    p.add_argument("--patminton-version", default="0.1.0")
    p.add_argument("--out", default="peers.json")
    p.add_argument("--md", default="peers.md")
    a = p.parse_args(argv)
    rows = []
    pt.guarded(rows, lambda: run(a), "patminton", a.patminton_version, "forward/adjoint", "oat_paper", "-")
    if rows:
        pt.append(a.out, a.md, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
