"""Runs the peers' scripts on a machine without a GPU, to check their plumbing before the one GPU
run: a stand-in `cupy` (NumPy under CuPy's names, bench/python/fake_gpu_check.py), a stand-in
`parallelproj_backend` (a sampled line integral in NumPy, not parallelproj's Joseph kernel), our
cpu backend (PEERS_OURS_BACKEND=cpu), ASTRA absent (its rows say so), iminuit as installed.
Small sizes; the table goes to --out/--md. The numbers mean nothing; the rows' presence does.

  PYTHONPATH=<tomoraster> python3 bench/peers/fake_gpu_smoke.py --cli build/apps/tomoraster
"""
import argparse
import os
import sys
import types

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "python"))


def fake_parallelproj():
    ppb = types.ModuleType("parallelproj_backend")
    ppb.__version__ = "fake (NumPy sampling)"
    samples = 64

    def points(xs, xe, origin, vsize, shape):
        t = (np.arange(samples) + 0.5) / samples
        p = xs[:, None, :] + t[None, :, None] * (xe - xs)[:, None, :]
        idx = np.rint((p - origin) / vsize).astype(np.int64)
        ok = np.all((idx >= 0) & (idx < np.asarray(shape)), axis=-1)
        step = np.linalg.norm(xe - xs, axis=-1) / samples
        return idx, ok, step

    def joseph3d_fwd(xs, xe, img, origin, vsize, p, device_id=0, threadsperblock=64):
        idx, ok, step = points(xs, xe, origin, vsize, img.shape)
        vals = np.where(ok, img[tuple(np.where(ok[..., None], idx, 0).transpose(2, 0, 1))], 0)
        p[...] = vals.sum(1) * step

    def joseph3d_back(xs, xe, img, origin, vsize, p, device_id=0, threadsperblock=64):
        idx, ok, step = points(xs, xe, origin, vsize, img.shape)
        w = np.broadcast_to((p * step)[:, None], ok.shape)[ok]
        np.add.at(img, tuple(idx[ok].T), w.astype(img.dtype))

    ppb.joseph3d_fwd, ppb.joseph3d_back = joseph3d_fwd, joseph3d_back
    return ppb


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cli", default="build/apps/tomoraster")
    p.add_argument("--out", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "peers_smoke.json"))
    p.add_argument("--md", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "peers_smoke.md"))
    a = p.parse_args()
    os.environ["PEERS_OURS_BACKEND"] = "cpu"
    import fake_gpu_check
    cp = fake_gpu_check.fake_cupy()
    sys.modules["cupy"] = cp
    sys.modules["parallelproj_backend"] = fake_parallelproj()
    sys.modules["astra"] = None  # import astra fails: its rows say so
    for f in (a.out, a.md):
        if os.path.exists(f):
            os.remove(f)
    import astra_peer
    import iminuit_peer
    import parallelproj_peer
    import peers_table as pt
    parallelproj_peer.main(["--events", "20000", "--repeat", "1", "--rings", "8", "--crystals", "64", "--image", "24,24,8", "--reps", "1", "--out", a.out, "--md", a.md])
    import parallelproj_glpet
    parallelproj_glpet.main(["--scene", "glpet_small.toml", "--voxels", "12,12,12", "--reps", "1", "--out", a.out,
                             "--md", a.md])
    parallelproj_glpet.main(["--scene", "glpet_small.toml", "--voxels", "12,12,12", "--reps", "1", "--joseph",
                             "--out", a.out, "--md", a.md])
    astra_peer.main(["--fdk-sizes", "32", "--bp-sizes", "", "--no-projector", "--reps", "1", "--out", a.out,
                     "--md", a.md])
    iminuit_peer.main(["--cli", a.cli, "--detectors", "4", "--bins", "2000", "--reps", "1", "--out", a.out,
                       "--md", a.md])
    # The new peers: TIGRE absent here (its extensions end the process without a GPU), so its row
    # says so and ours runs; GAPAT and optimistix run on the CPU when Taichi / JAX import here.
    sys.modules["tigre"] = None
    import gapat_peer
    import optimistix_peer
    import tigre_peer
    tigre_peer.main(["--L", "24", "--views", "12", "--detector", "32", "--pixel-mm", "7", "--reps", "1",
                     "--out", a.out, "--md", a.md])
    gapat_peer.main(["--scene", "oat_default.toml", "--rings", "4", "--views", "8", "--voxel-mm", "0.6",
                     "--t-min-us", "33", "--samples", "200", "--fs-mhz", "10", "--reps", "1", "--out", a.out,
                     "--md", a.md])
    optimistix_peer.main(["--cli", a.cli, "--detectors", "4", "--bins", "2000", "--reps", "1",
                          "--folder", os.path.join(os.environ.get("TMPDIR", "/tmp"), "peers_smoke_musr"),
                          "--out", a.out, "--md", a.md])
    rows = pt.load(a.out)
    failed = [r for r in rows if r["note"].startswith("failed")]
    print(f"fake GPU smoke: {len(rows)} rows, {len(failed)} failed")
    for r in failed:
        print("  ", r["peer"], r["operation"], r["note"])
    return 1 if failed or len(rows) < 14 else 0


if __name__ == "__main__":
    sys.exit(main())
