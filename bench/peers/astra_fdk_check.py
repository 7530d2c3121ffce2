"""Why ASTRA's FDK_CUDA output is off on the GPU machine: checks the cuFFT forwarder ASTRA loads
(libcufft.so.11 → the machine's cuFFT 12) against CuPy's FFT, then FDK_CUDA at a small size on
NumPy arrays and on CuPy arrays (linked through DLPack), with ASTRA's log on the screen, each
beside our FDK on the same projections (fitted c, r, and both against the phantom).

  python3 bench/peers/astra_fdk_check.py --cufft <astra site>/nvidia/cufft/lib/libcufft.so.11
"""
import argparse
import ctypes
import os
import sys

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "python"))
import peers_table as pt  # noqa: E402


def check_cufft(path, cp):
    """R2C then C2R of 8 rows of 256 through `path`, against cupy.fft."""
    lib = ctypes.CDLL(path)
    plan = ctypes.c_int(0)
    n, batch = 256, 8
    x = cp.random.default_rng(1).random((batch, n), dtype=cp.float32)
    spec = cp.zeros((batch, n // 2 + 1), dtype=cp.complex64)
    back = cp.zeros((batch, n), dtype=cp.float32)
    r = lib.cufftPlan1d(ctypes.byref(plan), n, 0x2A, batch)  # CUFFT_R2C
    print(f"{path}: cufftPlan1d R2C -> {r}")
    r = lib.cufftExecR2C(plan, ctypes.c_void_p(x.data.ptr), ctypes.c_void_p(spec.data.ptr))
    cp.cuda.Device().synchronize()
    err = float(cp.abs(spec - cp.fft.rfft(x, axis=1)).max())
    print(f"  cufftExecR2C -> {r}, max |theirs - cupy.fft.rfft| = {err:.2e}")
    lib.cufftDestroy(plan)
    plan2 = ctypes.c_int(0)
    r = lib.cufftPlan1d(ctypes.byref(plan2), n, 0x2C, batch)  # CUFFT_C2R
    r2 = lib.cufftExecC2R(plan2, ctypes.c_void_p(spec.data.ptr), ctypes.c_void_p(back.data.ptr))
    cp.cuda.Device().synchronize()
    print(f"  C2R plan -> {r}, exec -> {r2}, max |C2R(R2C(x))/n - x| = {float(cp.abs(back / n - x).max()):.2e}")
    lib.cufftDestroy(plan2)
    # As ASTRA calls it: the plan bound to a stream of its own (cufftSetStream) before the exec.
    stream = cp.cuda.Stream(non_blocking=True)
    plan3 = ctypes.c_int(0)
    spec.fill(0)
    r = lib.cufftPlan1d(ctypes.byref(plan3), n, 0x2A, batch)
    r2 = lib.cufftSetStream(plan3, ctypes.c_void_p(stream.ptr))
    r3 = lib.cufftExecR2C(plan3, ctypes.c_void_p(x.data.ptr), ctypes.c_void_p(spec.data.ptr))
    stream.synchronize()
    err = float(cp.abs(spec - cp.fft.rfft(x, axis=1)).max())
    print(f"  with cufftSetStream: plan {r}, set stream {r2}, exec {r3}, max error {err:.2e}")
    lib.cufftDestroy(plan3)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cufft", help="the libcufft.so.11 ASTRA loads")
    p.add_argument("--L", type=int, default=64)
    a = p.parse_args()
    import cupy as cp
    import astra
    import tomoraster
    import astra_peer as ap
    import rabbit_geometry as geo
    if a.cufft:
        try:
            check_cufft(a.cufft, cp)
        except Exception as e:  # noqa: BLE001
            print(f"cuFFT check failed: {type(e).__name__}: {e}")
    try:
        astra.log.setOutputScreen(2, astra.log.DEBUG)
    except Exception as e:  # noqa: BLE001
        print(f"astra.log: {e}")
    L = a.L
    views, cols, rows, pixel = 2 * L, 2 * L, 2 * L, 256.0 * ap.SDD / ap.SID / (2 * L) * 1.1
    vecs, _ = ap.orbit_vectors(views, cols, rows, pixel)
    proj = geo.ball_projections(cp, vecs, cols, rows)
    mats = ap.matrices_from_vectors(vecs, cols, rows)
    vox = ap.SIDE_MM / L
    ours = tomoraster.fdk.fdk(proj, mats, (L, L, L), (vox,) * 3, backend="cuda", interpolation="hardware", parker=False)
    truth = ap.balls_volume(cp, L)
    h = ap.SIDE_MM / 2
    vg = astra.create_vol_geom(L, L, L, -h, h, -h, h, -h, h)
    sino = cp.ascontiguousarray(proj.transpose(1, 0, 2))
    stat = lambda v: f"min {float(v.min()):.3g} max {float(v.max()):.3g} mean {float(v.mean()):.3g}"  # noqa: E731
    print(f"ours: {stat(ours)}; phantom: {stat(truth)}")
    for geom, filt in (("cone_vec", None), ("cone", None), ("cone_vec", "none")):
        if geom == "cone_vec":
            pg = astra.create_proj_geom("cone_vec", rows, cols, vecs)
        else:  # ASTRA's own circular orbit: angle θ puts the source at (sin θ, −cos θ)·SID, so θ = β + 90°
            ang = np.arange(views) * 2 * np.pi / views + np.pi / 2
            pg = astra.create_proj_geom("cone", pixel, pixel, rows, cols, ang, ap.SID, ap.SDD - ap.SID)
        for kind in ("numpy", "cupy"):
            try:
                vol = np.zeros((L, L, L), np.float32) if kind == "numpy" else cp.zeros((L, L, L), cp.float32)
                s = cp.asnumpy(sino) if kind == "numpy" else sino.copy()
                vid = astra.data3d.link("-vol", vg, vol)
                sid = astra.data3d.link("-sino", pg, s)
                cfg = astra.astra_dict("FDK_CUDA")
                cfg["ReconstructionDataId"], cfg["ProjectionDataId"] = vid, sid
                if filt:
                    cfg["option"] = {"FilterType": filt}
                aid = astra.algorithm.create(cfg)
                astra.algorithm.run(aid, 1)
                astra.algorithm.delete(aid)
                astra.data3d.delete([vid, sid])
                t = cp.asarray(vol)
                changed = float(cp.abs(cp.asarray(s) - (sino if kind == "cupy" else sino)).max())
                print(f"FDK_CUDA {geom} (filter {filt or 'ram-lak'}) on {kind}: {stat(t)}; {pt.agreement(cp, ours, t)}; vs phantom "
                      f"{pt.agreement(cp, truth, t)}; projections changed by {changed:.3g}")
            except Exception as e:  # noqa: BLE001
                print(f"FDK_CUDA {geom} (filter {filt or 'ram-lak'}) on {kind} failed: {type(e).__name__}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
