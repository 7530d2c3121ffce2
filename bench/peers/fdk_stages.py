"""Where tomoraster.fdk.fdk's time goes on the GPU, stage by stage, for astra_peer.py's FDK rows.

The path before the cuda pipeline, rebuilt from the module's parts as fdk.fdk called them per call
(a back-projector and a filter made per call; each 16-projection chunk: the device synchronised,
cuFFT filtered, back-projected with the volume loaded and stored again; NumPy chunks filtered
through a host round trip), and the pipeline (cuFFT plans, ring slots and staging buffers kept
per geometry): a first call that makes it, warm calls, and its own clocks (DeviceFdkTimes:
staging copies, host waits, volume copy-out, GPU upload and filter time) for CuPy and NumPy
stacks (the latter uploaded through page-locked buffers filled by host threads).
"""
from __future__ import annotations

import numpy as np

import peers_table as pt


def _origin(L, voxel):
    return [-(L - 1) / 2 * voxel] * 3


def old_path(tomoraster, xp, proj, host, mats, L, voxel, chunk=16):
    """The pre-pipeline fdk.fdk, stage by stage (ms)."""
    core = tomoraster._core
    timer = pt.Timer(xp)
    n, rows, cols = proj.shape
    out = {}

    def setup():
        bp = core.FdkBackprojector("cuda", [L] * 3, [voxel] * 3, _origin(L, voxel), "hardware")
        pre = core.FdkPreprocessor(mats, rows, cols, "ram-lak", False, True, "auto", "cuda")
        return bp, pre

    (bp, pre), out["setup"] = timer.one(setup)
    m = pre.matrices()
    filt = xp.empty_like(proj)

    def filter_all():
        for n0 in range(0, n, chunk):
            pre.apply_device(n0, proj[n0:n0 + chunk], filt[n0:n0 + chunk])

    _, out["filter_first"] = timer.one(filter_all)  # makes the device filter (its cuFFT plans)
    _, out["filter"] = timer.one(filter_all)
    vol = xp.empty((L, L, L), xp.float32)

    def bp_chunks():
        for n0 in range(0, n, chunk):
            bp.backproject_device(filt[n0:n0 + chunk], np.ascontiguousarray(m[n0:n0 + chunk]), vol, n0 > 0)

    _, out["bp_chunks"] = timer.one(bp_chunks)
    _, out["bp_one_call"] = timer.one(lambda: bp.backproject_device(filt, m, vol, False))
    # The pipeline's volume against this one (the same filter and kernels; another summation order).
    new = tomoraster.fdk.fdk(proj, mats, (L, L, L), (voxel,) * 3, backend="cuda", interpolation="hardware",
                             parker=False)
    out["rel_l2_pipeline_vs_old"] = float(xp.linalg.norm(new - vol) / xp.linalg.norm(vol))
    tomoraster.fdk.clear_cache()
    del new
    if host is not None:  # NumPy: the filter's host round trip, then the back-projection from host chunks
        hfilt = []

        def host_filter():
            hfilt.clear()
            for n0 in range(0, n, chunk):
                hfilt.append(pre.apply(n0, np.ascontiguousarray(host[n0:n0 + chunk])))

        _, out["numpy_filter_round_trip"] = timer.one(host_filter)

        def host_bp():
            bp.begin()
            for k, n0 in enumerate(range(0, n, chunk)):
                bp.add(hfilt[k], np.ascontiguousarray(m[n0:n0 + chunk]))
            return bp.finish()

        _, out["numpy_bp_and_volume_out"] = timer.one(host_bp)
    del filt, vol
    return {k: (v if k.startswith("rel") else round(v, 2)) for k, v in out.items()}


def pipeline(tomoraster, xp, stack, mats, L, voxel, reps):
    """The cuda pipeline on `stack` (CuPy or NumPy): first call, warm median, its clocks (ms)."""
    fdk = tomoraster.fdk
    fdk.clear_cache()
    timer = pt.Timer(xp)
    call = lambda: fdk.fdk(stack, mats, (L, L, L), (voxel,) * 3, backend="cuda",  # noqa: E731
                           interpolation="hardware", parker=False)
    _, first = timer.one(call)
    warm = timer.median(call, reps, warmup=0)
    pipe = next(iter(fdk._CACHE.values()))
    res = {"first_call": round(first, 2), "warm_median": round(warm, 2), "warm_runs": [round(t, 2) for t in timer.runs],
           "clocks": {k: (round(v, 2) if isinstance(v, float) else v) for k, v in pipe.times().items()},
           "describe": pipe.describe()}
    return res, timer.last


def variants(tomoraster, xp, stack, mats, L, voxel, reps, chunks=(16, 32, 64), rings=(0.0, 1024.0, 8192.0)):
    """The pipeline made directly (tomoraster._core.FdkPipeline) at other chunk sizes and ring
    sizes (MiB of device slots; 0: three slots), on `stack` (CuPy or NumPy): warm median and clocks."""
    n, rows, cols = stack.shape
    out = {}
    for chunk in chunks:
        for ring in rings:
            if chunk != 32 and ring != 1024.0:
                continue  # one axis at a time
            try:
                pipe = tomoraster._core.FdkPipeline(mats, rows, cols, "ram-lak", False, True, [L] * 3, [voxel] * 3,
                                                    _origin(L, voxel), "hardware", chunk, ring)
                on_gpu = not isinstance(stack, np.ndarray)
                vol = xp.empty((L, L, L), xp.float32) if on_gpu else None

                def once():
                    pipe.begin()
                    for n0 in range(0, n, chunk):
                        pipe.add(n0, stack[n0:n0 + chunk])
                    return pipe.finish_device(vol) if on_gpu else pipe.finish_host()

                timer = pt.Timer(xp)
                ms = timer.median(once, reps, warmup=1)
                out[f"chunk {chunk}, ring {ring:g} MiB"] = {
                    "warm_median": round(ms, 2), "describe": pipe.describe(),
                    "clocks": {k: (round(v, 2) if isinstance(v, float) else v) for k, v in pipe.times().items()}}
                del pipe
            except Exception as e:  # noqa: BLE001
                out[f"chunk {chunk}, ring {ring:g} MiB"] = f"failed: {type(e).__name__}: {e}"
    return out
