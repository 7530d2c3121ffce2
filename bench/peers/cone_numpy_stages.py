"""Where the time of fdk.ConeBeam's NumPy path goes, on the TIGRE rows' orbit (256³ over a 256 mm
cube, 360 views of 512×512 at 0.9 mm, source–isocentre 750 mm, source–detector 1200 mm): each of
forward (A), back (Aᵀ) and back_voxel (B), and fdk.Backprojector (1/w², FDK's weights), with the
exact and the hardware sampling, from NumPy
(a new NumPy array back) and on CuPy arrays in place (the kernels alone, no host copy), medians;
NumPy − CuPy is what the host path adds beyond the kernels. Beside them, the transfers a plain
host path makes: CuPy's pageable copies of the volume (64 MiB) and of the stack (360 MiB) each
way, and one thread's copy of the stack into a new NumPy array.

  python3 bench/peers/cone_numpy_stages.py --json stages.json      (our module on PYTHONPATH)
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import peers_table as pt  # noqa: E402
import tigre_peer as tp  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    tp.geometry_arguments(p, reps=5)
    p.add_argument("--json", default="cone-stages.json")
    a = p.parse_args(argv)
    import cupy as xp
    import tomoraster
    getattr(tomoraster, "quiet", lambda: None)()
    L, n, d = a.L, a.views, a.detector
    g = tp.ours_geometry(tomoraster, L, n, d, d, a.pixel_mm, np.arange(n) * 2 * np.pi / n)
    rng = np.random.default_rng(1)
    x = rng.random(g.in_shape, dtype=np.float32)
    y = rng.random(g.out_shape, dtype=np.float32) * np.float32(1e-2)
    x_d, y_d = xp.asarray(x), xp.asarray(y)
    wall, events = pt.Timer(None), pt.Timer(xp)
    rows = []
    gpu = pt.gpu_name(xp)
    print(f"{gpu}; {L}^3, {n} views of {d}x{d}; medians of {a.reps}")
    print(f"{'operator':<13} {'sampling':<9} {'NumPy ms':>9} {'CuPy ms':>8} {'host ms':>8}  same as CuPy")
    for m in ("hardware", "exact"):
        op = tomoraster.fdk.ConeBeam(g, "cuda", step_voxels=0.5, interpolation=m)
        bp = tomoraster.fdk.Backprojector((L,) * 3, (tp.SIDE_MM / L,) * 3, backend="cuda", interpolation=m)
        fdk_bp = lambda p: bp.backproject(p, g.matrices)  # noqa: E731
        for which, arg, arg_d in (("forward", x, x_d), ("back_voxel", y, y_d), ("back", y, y_d),
                                  ("Backprojector", y, y_d)):
            fn = fdk_bp if which == "Backprojector" else getattr(op, which)
            host = wall.median(lambda: fn(arg), a.reps)
            got = wall.last
            dev = events.median(lambda: fn(arg_d), a.reps)
            ref = xp.asnumpy(events.last)
            diff = float(np.linalg.norm(got - ref) / max(np.linalg.norm(ref), 1e-30))
            rows.append(dict(operator=which, sampling=m, numpy_ms=host, cupy_ms=dev, host_ms=host - dev, rel_l2=diff))
            print(f"{which:<13} {m:<9} {host:9.1f} {dev:8.1f} {host - dev:8.1f}  rel L2 {diff:.1e}")
        del op, bp
        xp.get_default_memory_pool().free_all_blocks()
    ref = {}
    vol, stack = f"volume {x.nbytes / 2**20:.0f} MiB", f"stack {y.nbytes / 2**20:.0f} MiB"
    ref[f"cupy.asarray({vol})"] = events.median(lambda: xp.asarray(x), a.reps)
    ref[f"cupy.asnumpy({vol})"] = events.median(lambda: xp.asnumpy(x_d), a.reps)
    ref[f"cupy.asarray({stack})"] = events.median(lambda: xp.asarray(y), a.reps)
    ref[f"cupy.asnumpy({stack})"] = events.median(lambda: xp.asnumpy(y_d), a.reps)
    ref["numpy copy of the stack into a new array (one thread)"] = wall.median(lambda: y.copy(), a.reps)
    t0 = time.perf_counter()
    z = np.zeros_like(y)
    z[0, 0, 0] = 1
    ref["numpy.zeros_like(stack) + first touch"] = (time.perf_counter() - t0) * 1e3
    for k, v in ref.items():
        print(f"{k:<58} {v:8.1f} ms")
    with open(a.json, "w") as f:
        json.dump(dict(gpu=gpu, size=f"{L}^3, {n} views of {d}x{d}", reps=a.reps, rows=rows, transfers_ms=ref), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
