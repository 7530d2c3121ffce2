"""parallelproj beside ours on one GPU, in one process: its Joseph list-mode projector
(parallelproj_backend.joseph3d_fwd / joseph3d_back, CUDA, on CuPy arrays through DLPack) on the
lines of response of our safir events, against tomoraster.safir.Projector (cuda) on the same
events and voxel grid, and one list-mode ML-EM iteration of each.

Geometry (docs/safir.md): crystal id = ring·crystals + detector, detector d at angle 2πd/C on the
front-face radius R, ring r at z = pitch·(r − (rings−1)/2); the line joins the two front-face
centres. Image (z, y, x), voxel centres at (i − (n−1)/2)·voxel; parallelproj gets the same array
with its coordinates in (z, y, x) order. The models differ: ours is eq. (12) of [Locans2017]
(weights max(0, 1 − d/voxel) over a 2×2 block per plane, in voxels), theirs Joseph's
(bilinear, in mm): the fitted constant c (theirs ≈ c·ours, about the voxel size) is taken out
and rel L2 and Pearson r say how close the rest is. A small convention search (x/y swapped,
half a crystal turned) on the first events picks the crystal positions that match ours best;
the row names it. TOF list-mode is not in the parallelproj-backend snapshot we build (only
its TOF sinogram projector), glpet's module-plane LORs are not exposed by our package: both are
noted, not run.

  PYTHONPATH=<parallelproj_backend build>:... python3 bench/peers/parallelproj_peer.py --out peers.json --md peers.md
"""
from __future__ import annotations

import argparse
import math
import os
import sys

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import peers_table as pt  # noqa: E402


# Our backend: cuda on the GPU machine; PEERS_OURS_BACKEND=cpu with a stand-in CuPy (NumPy) checks
# the script's plumbing on a machine without a GPU.
BACKEND = os.environ.get("PEERS_OURS_BACKEND", "cuda")


def into(fn, x, out):
    """fn(x) into out: in place on the GPU (cuda), a host result copied in otherwise."""
    if BACKEND == "cuda":
        return fn(x, out=out)
    out[...] = fn(np.asarray(x, dtype=np.float64))
    return out


def crystal_positions(rings, crystals, pitch, radius=0.0, swap_xy=False, turn=0.0):
    """(rings·crystals, 3) float32 front-face centres as (z, y, x), our crystal id order."""
    R = radius if radius > 0 else pitch / (2 * math.sin(math.pi / crystals))
    phi = 2 * np.pi * (np.arange(crystals) + turn) / crystals
    x, y = R * np.cos(phi), R * np.sin(phi)
    if swap_xy:
        x, y = y, x
    z = pitch * (np.arange(rings) - (rings - 1) / 2)
    pos = np.empty((rings, crystals, 3))
    pos[..., 0] = z[:, None]
    pos[..., 1] = y[None, :]
    pos[..., 2] = x[None, :]
    return pos.reshape(-1, 3).astype(np.float32)


def test_image(xp, shape, voxel):
    """A cylinder (radius 25 mm) at 1 with three hot spheres (4, 6, 8 mm) at 4, on the (z, y, x) grid."""
    nz, ny, nx = shape
    ax = lambda n: (xp.arange(n) - (n - 1) / 2) * voxel  # noqa: E731
    z, y, x = ax(nz)[:, None, None], ax(ny)[None, :, None], ax(nx)[None, None, :]
    img = ((x * x + y * y) <= 25.0 ** 2).astype(xp.float32) * xp.ones((nz, 1, 1), xp.float32)
    for (cx, cy, cz), r in (((10.0, 0.0, 0.0), 4.0), ((-8.0, 12.0, 5.0), 6.0), ((0.0, -14.0, -6.0), 8.0)):
        img += 3.0 * (((x - cx) ** 2 + (y - cy) ** 2 + (z - cz) ** 2) <= r * r).astype(xp.float32)
    return img


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeat", type=int, default=10, help="the scene's events repeated this often (timing size)")
    p.add_argument("--events", type=int, default=400000, help="safir.events simulated")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--rings", type=int, default=91, help="safir.rings (the default scanner's)")
    p.add_argument("--crystals", type=int, default=180, help="safir.crystals")
    p.add_argument("--image", default="90,90,50", help="safir.image (x, y, z voxels of 0.7 mm)")
    p.add_argument("--tpb", type=int, default=64, help="parallelproj threads per block")
    p.add_argument("--out", default="peers.json")
    p.add_argument("--md", default="peers.md")
    a = p.parse_args(argv)
    import cupy as xp
    import tomoraster
    from tomoraster import safir
    getattr(tomoraster, "quiet", lambda: None)()
    gpu = pt.gpu_name(xp)
    timer = pt.Timer(xp)
    try:
        import parallelproj_backend as ppb
        version = f"parallelproj-backend {getattr(ppb, '__version__', '?')}"
        why = ""
    except Exception as e:  # noqa: BLE001
        ppb, version, why = None, "-", f"import parallelproj_backend failed: {type(e).__name__}: {e}"
        print(why)
    scanner = dict(rings=a.rings, crystals=a.crystals, image=[int(v) for v in a.image.split(",")])
    ev, _, _ = safir.events(events=a.events, **scanner)  # the default scene (docs/safir.md), simulated
    ours = safir.Projector(backend=BACKEND, **scanner)
    rings, crystals = a.rings, a.crystals
    pitch, voxel = 2.2, 0.7
    shape = ours.image_shape
    ev = np.tile(np.asarray(ev), (a.repeat, 1))
    n = len(ev)
    size = f"{n / 1e6:.1f}M events ({a.events} x {a.repeat}), image {shape[2]}x{shape[1]}x{shape[0]} of {voxel} mm"
    ev_d = xp.asarray(ev)
    ours.set_events(ev_d)
    img = test_image(xp, shape, voxel)
    y_ours = xp.empty(n, xp.float32)
    fwd_ms = timer.median(lambda: into(ours.forward, img, y_ours), a.reps)
    ones = xp.ones(n, xp.float32)
    b_ours = xp.empty(shape, xp.float32)
    back_ms = timer.median(lambda: into(ours.back, ones, b_ours), a.reps)
    rows = []
    if ppb is None:
        rows.append(pt.row("parallelproj", "-", "LM fwd (non-TOF)", size, gpu, None, fwd_ms, "", "safir.Projector.forward", why))
        rows.append(pt.row("parallelproj", "-", "LM back (non-TOF)", size, gpu, None, back_ms, "", "safir.Projector.back", why))
        pt.append(a.out, a.md, rows)
        return 0
    origin = xp.asarray([-(k - 1) / 2 * voxel for k in shape], dtype=xp.float32)
    vsize = xp.asarray([voxel] * 3, dtype=xp.float32)
    y_t = xp.empty(n, xp.float32)

    def lines(pos):
        pos = xp.asarray(pos)
        return xp.ascontiguousarray(pos[ev_d[:, 0].astype(xp.int64)]), xp.ascontiguousarray(pos[ev_d[:, 1].astype(xp.int64)])

    # Which crystal convention matches ours: on the first 200k events, by the forward's r.
    m = min(n, 200000)
    best = None
    for name, kw in (("as documented", {}), ("x/y swapped", {"swap_xy": True}), ("half a crystal turned", {"turn": 0.5}),
                     ("swapped and turned", {"swap_xy": True, "turn": 0.5})):
        xs, xe = lines(crystal_positions(rings, crystals, pitch, **kw))
        ppb.joseph3d_fwd(xs[:m], xe[:m], img, origin, vsize, y_t[:m], 0, a.tpb)
        _, rel, r = pt.fit_scale(xp, y_ours[:m], y_t[:m])
        print(f"crystal convention {name}: rel L2 {rel:.3e}, r {r:.5f}")
        if best is None or r > best[1]:
            best = (name, r, xs, xe)
    conv, _, xs, xe = best
    xp.cuda.Device().synchronize()
    t_fwd = timer.median(lambda: ppb.joseph3d_fwd(xs, xe, img, origin, vsize, y_t, 0, a.tpb), a.reps)
    ag = pt.agreement(xp, y_ours, y_t, f"crystals {conv}; ")
    rows.append(pt.row("parallelproj", version, "LM fwd (non-TOF, Joseph)", size, gpu, t_fwd, fwd_ms, ag,
                       "safir.Projector.forward (cuda, CuPy)", f"threads/block {a.tpb}"))
    b_t = xp.zeros(shape, xp.float32)

    def their_back():
        b_t.fill(0)  # joseph3d_back accumulates
        ppb.joseph3d_back(xs, xe, b_t, origin, vsize, ones, 0, a.tpb)
    t_back = timer.median(their_back, a.reps)
    rows.append(pt.row("parallelproj", version, "LM back (non-TOF, Joseph)", size, gpu, t_back, back_ms,
                       pt.agreement(xp, b_ours, b_t, "back of ones; "), "safir.Projector.back (cuda, CuPy)",
                       f"theirs includes zeroing the image; threads/block {a.tpb}"))
    # One list-mode ML-EM iteration from f = 1 with each projector, the sensitivity (ours, over
    # all crystal pairs) computed once outside the timing, scaled by c for theirs.
    c_fit = pt.fit_scale(xp, y_ours, y_t)[0]
    s = xp.asarray(ours.sensitivity(), dtype=xp.float32)
    s_ours = xp.where(s > 0, s, 1)
    s_t = s_ours * c_fit
    x0 = xp.where(s > 0, 1.0, 0.0).astype(xp.float32)
    x_t, y_tt, b_tt = x0.copy(), xp.empty(n, xp.float32), xp.zeros(shape, xp.float32)

    def their_em():
        x_t[...] = x0
        ppb.joseph3d_fwd(xs, xe, x_t, origin, vsize, y_tt, 0, a.tpb)
        r = xp.where(y_tt > 0, 1 / xp.where(y_tt > 0, y_tt, 1), 0).astype(xp.float32)
        b_tt.fill(0)
        ppb.joseph3d_back(xs, xe, b_tt, origin, vsize, r, 0, a.tpb)
        x_t[...] = x_t * b_tt / s_t
    t_em = timer.median(their_em, a.reps)
    x_o, y_o, b_o = x0.copy(), xp.empty(n, xp.float32), xp.empty(shape, xp.float32)

    def our_em():  # the same loop around our projector (ours.mlem's own pass is timed below)
        x_o[...] = x0
        into(ours.forward, x_o, y_o)
        r = xp.where(y_o > 0, 1 / xp.where(y_o > 0, y_o, 1), 0).astype(xp.float32)
        into(ours.back, r, b_o)
        x_o[...] = x_o * b_o / s_ours
    o_em = timer.median(our_em, a.reps)
    ag = pt.agreement(xp, x_o, x_t, "image after 1 iteration; ")
    rows.append(pt.row("parallelproj", version, "LM ML-EM iteration (same CuPy loop)", size, gpu, t_em, o_em, ag,
                       "safir.Projector forward+back in the CuPy loop", "sensitivity: ours (x c for theirs), outside the timing"))
    # Our fused list-mode pass (safir.mlem on CuPy events): time of one iteration from 1 vs 3.
    ours_it = None
    try:
        t1 = timer.median(lambda: safir.mlem(ours, ev_d, iterations=1), max(1, a.reps // 2))
        t3 = timer.median(lambda: safir.mlem(ours, ev_d, iterations=3), max(1, a.reps // 2))
        ours_it = (t3 - t1) / 2
    except Exception as e:  # noqa: BLE001
        print(f"safir.mlem on CuPy events failed: {type(e).__name__}: {e}")
    rows.append(pt.row("parallelproj", version, "LM ML-EM iteration (ours: fused pass)", size, gpu, t_em, ours_it,
                       "(ours: the cuda backend's list-mode pass, eq. (10))", "safir.mlem (cuda, CuPy events), (t3 - t1)/2", ""))
    rows.append(pt.row("parallelproj", version, "LM fwd/back TOF", "-", gpu, None, None, "", "-",
                       "not run: the parallelproj-backend snapshot built has joseph3d_tof_sino_* only, no TOF list-mode"))
    pt.append(a.out, a.md, rows)
    print(pt.markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
