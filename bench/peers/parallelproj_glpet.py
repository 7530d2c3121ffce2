"""parallelproj beside ours on glpet's LORs, on one GPU, in one process: its non-TOF Joseph
projector (parallelproj_backend.joseph3d_fwd / joseph3d_back on CuPy arrays) on the lines of a
glpet scene's system model (glpet.Projector.lor_endpoints: each LOR from the centre of its detector
on one module to the centre of its detector on the other, the scene's voxel grid and mm), against
tomoraster.glpet.Projector (cuda) forward/back on the same image and LOR vectors, and one ML-EM
iteration of each in the same CuPy loop.

The models differ: ours is [Toth2010]'s (a voxel's sample, every line from it through the
detectors' R×R sub-pixels, weight = solid angle / 2π), theirs a line integral in mm along the
detector-centre line: the fitted constant c (theirs ≈ c·ours) is taken out and rel L2 and
Pearson r say how alike the rest is. Each side's ML-EM divides by its own sensitivity (its back
projection of ones), computed outside the timing; the data are our forward projection of the
scene's phantom-like test image (noise-free), the images after one iteration are compared.

With --like, ours runs glpet_default.toml's scanner (two 32x32 modules of 2 mm at z = ±80 mm, a
128³ grid of 0.5 mm) with one line per detector (R = 1), one sample per voxel (N = 1) and no
attenuation map (no transmission samples, T = 1): one line per primary detector from each voxel's
centre, the nearest thing of ours to one line per LOR. What stays different then: ours is
voxel-driven (each voxel's 32x32 lines, weight = solid angle / 2π, binned to the detector the
line hits), theirs LOR-driven (each LOR's detector-centre line, Joseph's interpolated line
integral in mm).

  PYTHONPATH=<parallelproj_backend build>:... python3 bench/peers/parallelproj_glpet.py --out peers.json --md peers.md
  ... parallelproj_glpet.py --like       # R = 1, N = 1, no attenuation
  ... parallelproj_glpet.py --joseph     # ours: tomoraster.pet.LineProjector, the same operator

With --joseph, ours is our own Joseph projector (tomoraster.pet.LineProjector on the same LOR end
points, grid and image): the same model as theirs, so c should be 1 and rel L2 at float rounding.
The ML-EM data are then their forward projection of the test image (a model independent of ours).
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import peers_table as pt  # noqa: E402

BACKEND = os.environ.get("PEERS_OURS_BACKEND", "cuda")


def apply(fn, x, out):
    """fn(x) into out: in place on the GPU (cuda), a host result copied in otherwise."""
    if BACKEND == "cuda":
        return fn(x, out=out)
    out[...] = fn(np.asarray(x))
    return out


def test_image(xp, shape, origin, voxel):
    """A cylinder along y (radius 0.4 of the grid's x extent) at 1 with two hot spheres at 4,
    on the (z, y, x) grid; origin/voxel in (x, y, z) mm as lor_endpoints gives them."""
    nz, ny, nx = shape
    x = xp.asarray(origin[0] + np.arange(nx) * voxel[0], dtype=xp.float32)[None, None, :]
    y = xp.asarray(origin[1] + np.arange(ny) * voxel[1], dtype=xp.float32)[None, :, None]
    z = xp.asarray(origin[2] + np.arange(nz) * voxel[2], dtype=xp.float32)[:, None, None]
    r = 0.4 * nx * voxel[0]
    img = ((x * x + z * z) <= r * r).astype(xp.float32) * xp.ones((1, ny, 1), xp.float32)
    for (cx, cy, cz), rs in (((0.3 * r, 0.0, 0.0), 0.15 * r), ((-0.4 * r, 0.2 * r, 0.3 * r), 0.25 * r)):
        img += 3.0 * (((x - cx) ** 2 + (y - cy) ** 2 + (z - cz) ** 2) <= rs * rs).astype(xp.float32)
    return img


def line_scene():
    """glpet_default.toml's scanner and grid with one line per detector, one sample per voxel and
    no attenuation map (no [[glpet.attenuation]]: the transmission is 1, nothing is sampled). The
    scene needs an activity; the projector does not use it."""
    module = dict(axis_a=[1.0, 0.0, 0.0], axis_t=[0.0, 1.0, 0.0], detectors=[32, 32], pitch_mm=[2.0, 2.0])
    return {"problem": "glpet",
            "glpet": {"voxels": [128, 128, 128], "voxel_mm": [0.5, 0.5, 0.5], "R": 1, "N": 1,
                      "modules": [dict(module, centre=[0.0, 0.0, -80.0], normal=[0.0, 0.0, 1.0]),
                                  dict(module, centre=[0.0, 0.0, 80.0], normal=[0.0, 0.0, -1.0])],
                      "pairs": [{"modules": [0, 1]}],
                      "activity": [{"type": "sphere", "centre": [0.0, 0.0, 0.0], "radius": 10.0, "value": 1.0}]}}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scene", default="glpet_default.toml", help="a glpet scene (embedded name or path)")
    p.add_argument("--voxels", default="", help="x,y,z: override glpet.voxels (the field of view kept)")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--like", action="store_true",
                   help="ours at R = 1, N = 1, no attenuation (line_scene) instead of --scene")
    p.add_argument("--joseph", action="store_true",
                   help="ours: tomoraster.pet.LineProjector (Joseph's model) on the same LORs instead of glpet.Projector")
    p.add_argument("--system-cache", default="", help="glpet.system_cache for ours (auto/on/off; default the scene's)")
    p.add_argument("--tpb", type=int, default=64, help="parallelproj threads per block")
    p.add_argument("--out", default="peers.json")
    p.add_argument("--md", default="peers.md")
    a = p.parse_args(argv)
    import cupy as xp
    import tomoraster
    from tomoraster import glpet
    getattr(tomoraster, "quiet", lambda: None)()
    gpu = pt.gpu_name(xp)
    timer = pt.Timer(xp)
    keys = {}
    scene = line_scene() if a.like else a.scene
    if a.system_cache:
        keys["system_cache"] = a.system_cache
    if a.voxels:
        keys["voxels"] = [int(v) for v in a.voxels.split(",")]
        base = glpet.Projector(scene, backend="cpu")
        fov = [n * v for n, v in zip(base.image_shape[::-1], base.lor_endpoints()[2])]
        keys["voxel_mm"] = [f / n for f, n in zip(fov, keys["voxels"])]
    ours = glpet.Projector(scene, backend="cpu" if a.joseph else BACKEND, **keys)
    ends, origin, voxel = ours.lor_endpoints()
    shape, n = ours.image_shape, ours.lor_count
    if a.joseph:
        from tomoraster import pet
        ours = pet.LineProjector(ends, shape, voxel, origin, backend=BACKEND)
    name = "glpet_default.toml's scanner at R=1, N=1, no attenuation" if a.like else os.path.basename(a.scene)
    size = (f"{name}: {n / 1e6:.2f}M LORs, image {shape[2]}x{shape[1]}x{shape[0]} of "
            f"{voxel[0]:g} mm")
    print(f"glpet {size}; LOR end points {ends.shape}, voxel (0,0,0) at {origin} mm")
    try:
        import parallelproj_backend as ppb
        version = f"parallelproj-backend {getattr(ppb, '__version__', '?')}"
        why = ""
    except Exception as e:  # noqa: BLE001
        ppb, version, why = None, "-", f"import parallelproj_backend failed: {type(e).__name__}: {e}"
        print(why)
    img = test_image(xp, shape, origin, voxel)
    y_ours = xp.empty(n, xp.float32)
    fwd_ms = timer.median(lambda: apply(ours.forward, img, y_ours), a.reps)
    ones = xp.ones(n, xp.float32)
    b_ours = xp.empty(shape, xp.float32)
    back_ms = timer.median(lambda: apply(ours.back, ones, b_ours), a.reps)
    ours_name = (f"glpet.Projector ({BACKEND}, CuPy{', R=1, N=1, T=1' if a.like else ''}"
                 f"{', system_cache ' + a.system_cache if a.system_cache else ''})")
    if a.joseph:
        ours_name = f"pet.LineProjector ({BACKEND}, CuPy)"
    expected_c = 1.0 if a.joseph else None
    print(f"ours: {ours.backend}")
    rows = []
    if ppb is None:
        rows.append(pt.row("parallelproj", "-", "glpet LORs fwd (non-TOF)", size, gpu, None, fwd_ms, "", ours_name, why))
        rows.append(pt.row("parallelproj", "-", "glpet LORs back (non-TOF)", size, gpu, None, back_ms, "", ours_name, why))
        pt.append(a.out, a.md, rows)
        return 0
    # parallelproj's arrays and coordinates in the image's (z, y, x) order.
    xs = xp.ascontiguousarray(xp.asarray(ends[:, 0, ::-1], dtype=xp.float32))
    xe = xp.ascontiguousarray(xp.asarray(ends[:, 1, ::-1], dtype=xp.float32))
    o = xp.asarray(origin[::-1], dtype=xp.float32)
    vs = xp.asarray(voxel[::-1], dtype=xp.float32)
    y_t = xp.empty(n, xp.float32)
    t_fwd = timer.median(lambda: ppb.joseph3d_fwd(xs, xe, img, o, vs, y_t, 0, a.tpb), a.reps)
    rows.append(pt.row("parallelproj", version, "glpet LORs fwd (non-TOF, Joseph)", size, gpu, t_fwd, fwd_ms,
                       pt.agreement(xp, y_ours, y_t, "detector-centre lines; ", expected_c), ours_name + ".forward",
                       f"threads/block {a.tpb}"))
    b_t = xp.zeros(shape, xp.float32)

    def their_back(v, out):
        out.fill(0)  # joseph3d_back accumulates
        ppb.joseph3d_back(xs, xe, out, o, vs, v, 0, a.tpb)
        return out
    t_back = timer.median(lambda: their_back(ones, b_t), a.reps)
    rows.append(pt.row("parallelproj", version, "glpet LORs back (non-TOF, Joseph)", size, gpu, t_back, back_ms,
                       pt.agreement(xp, b_ours, b_t, "back of ones; ", expected_c), ours_name + ".back",
                       f"theirs includes zeroing the image; threads/block {a.tpb}"))
    # One ML-EM iteration from 1 on each side's field of view (sensitivity > 0), the data our
    # forward projection of the test image (theirs with --joseph: ours is then the same model);
    # each side's sensitivity outside the timing.
    y = (y_t if a.joseph else y_ours).copy()
    s_o, s_t = b_ours.copy(), b_t.copy()
    x0_o = (s_o > 0).astype(xp.float32)
    x0_t = (s_t > 0).astype(xp.float32)
    inv_o = xp.where(s_o > 0, 1 / xp.where(s_o > 0, s_o, 1), 0).astype(xp.float32)
    inv_t = xp.where(s_t > 0, 1 / xp.where(s_t > 0, s_t, 1), 0).astype(xp.float32)

    def ratio(q):
        return xp.where(q > 0, y / xp.where(q > 0, q, 1), 0).astype(xp.float32)
    x_o, q_o, c_o = x0_o.copy(), xp.empty(n, xp.float32), xp.empty(shape, xp.float32)
    x_t, q_t, c_t = x0_t.copy(), xp.empty(n, xp.float32), xp.zeros(shape, xp.float32)

    def our_em():
        x_o[...] = x0_o
        apply(ours.forward, x_o, q_o)
        apply(ours.back, ratio(q_o), c_o)
        x_o[...] = x_o * c_o * inv_o

    def their_em():
        x_t[...] = x0_t
        ppb.joseph3d_fwd(xs, xe, x_t, o, vs, q_t, 0, a.tpb)
        their_back(ratio(q_t), c_t)
        x_t[...] = x_t * c_t * inv_t
    o_em = timer.median(our_em, a.reps)
    t_em = timer.median(their_em, a.reps)
    both = (x0_o > 0) & (x0_t > 0)
    ag = pt.agreement(xp, xp.where(both, x_o, 0), xp.where(both, x_t, 0), "image after 1 iteration (common FOV); ",
                      expected_c)
    rows.append(pt.row("parallelproj", version, "glpet ML-EM iteration (same CuPy loop)", size, gpu, t_em, o_em, ag,
                       ours_name + " forward+back in the CuPy loop",
                       f"data: {'their' if a.joseph else 'our'} forward of the test image; each side's own sensitivity,"
                       " outside the timing"))
    pt.append(a.out, a.md, rows)
    print(pt.markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
