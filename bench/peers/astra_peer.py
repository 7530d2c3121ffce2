"""ASTRA 2.5 beside ours on one GPU, in one process: FDK (FDK_CUDA) on a circular orbit at 256³
and a RabbitCT-sized 512³, and the projector pair and iterations (FP3D_CUDA, BP3D_CUDA,
SIRT3D_CUDA, CGLS3D_CUDA) at 256³, plus BP3D_CUDA on RabbitCT's geometry at 512³; rows go to
the peers table (peers_table.py).

FDK: the same analytic projections (balls, exact chord lengths) on the GPU (CuPy); ASTRA's
FDK_CUDA on them linked through DLPack where its data3d.link takes CuPy arrays (else NumPy,
and its time then includes the copies; the row says which), ours tomoraster.fdk.fdk on the CuPy
stack (backend cuda: cuFFT ramp and back-projection on the GPU). Both: full 360° orbit, Ram-Lak,
no Parker weights. Agreement: fitted constant c (theirs ≈ c·ours, 1 expected: both in mm⁻¹) and
relative L2 inside the central 80 % of the volume, and each one's error against the balls.
The projector pair and iterations come from bench/python/astra_iterative.py (ours: bench_fdk
--projector), BP3D at 512³ from bench/python/astra_side_by_side.py; their rows are converted.

  python3 bench/peers/astra_peer.py --bench build/bench/bench_fdk --out peers.json --md peers.md
  python3 bench/peers/astra_peer.py --fdk-sizes 32 --no-projector   # a quick check
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "python"))
import fdk_stages  # noqa: E402
import peers_table as pt  # noqa: E402

# Our backend: cuda on the GPU machine (PEERS_OURS_BACKEND=cpu: a plumbing check without a GPU).
BACKEND = os.environ.get("PEERS_OURS_BACKEND", "cuda")
# Circular orbits: (L, views, cols, rows, pixel mm); source-isocentre 750 mm, source-detector 1200 mm,
# a 256 mm cube (RabbitCT's volume). 512: RabbitCT's detector and view count on a full circle.
ORBITS = {256: (256, 360, 512, 512, 0.9), 512: (512, 496, 1248, 960, 0.4)}
SID, SDD, SIDE_MM = 750.0, 1200.0, 256.0


def orbit_vectors(views, cols, rows, pixel):
    """ASTRA cone_vec rows of our circular orbit (docs/ct.md): source SID·(cos β, sin β, 0), detector
    centre at −(SDD−SID)·(cos β, sin β, 0), columns along (−sin β, cos β, 0), rows along +z."""
    b = np.arange(views) * 2 * np.pi / views
    c, s, z = np.cos(b), np.sin(b), np.zeros(views)
    src = np.stack([SID * c, SID * s, z], 1)
    det = np.stack([-(SDD - SID) * c, -(SDD - SID) * s, z], 1)
    u = np.stack([-s * pixel, c * pixel, z], 1)
    v = np.stack([z, z, np.full(views, pixel)], 1)
    return np.concatenate([src, det, u, v], 1), np.degrees(b)


def matrices_from_vectors(vecs, cols, rows):
    """Our (n, 3, 4) matrices of cone_vec rows: x − s = λ·(d₀ + a·u + b·v − s) with d₀ the centre of
    pixel (0, 0), so (a·λ, b·λ, λ) = M⁻¹(x − s), M = [u | v | d₀ − s]; scaled to w = 1 at the origin."""
    out = np.empty((len(vecs), 3, 4))
    for k, row in enumerate(np.asarray(vecs, dtype=np.float64)):
        s, d, u, v = row[0:3], row[3:6], row[6:9], row[9:12]
        d0 = d - 0.5 * (cols - 1) * u - 0.5 * (rows - 1) * v
        mi = np.linalg.inv(np.stack([u, v, d0 - s], axis=1))
        P = np.concatenate([mi, -(mi @ s)[:, None]], axis=1)
        out[k] = P / P[2, 3]
    return out


def balls_volume(xp, L):
    """The phantom of rabbit_geometry.BALLS averaged over 2³ points per voxel, (z, y, x)."""
    import rabbit_geometry as geo
    vox = SIDE_MM / L
    out = xp.zeros((L, L, L), dtype=xp.float32)
    sub = [-0.25, 0.25]
    ax = -SIDE_MM / 2 + (xp.arange(L) + 0.5) * vox
    for c, radius, mu in geo.BALLS:
        acc = xp.zeros((L, L, L), dtype=xp.float32)
        for dz in sub:
            for dy in sub:
                for dx in sub:
                    z = (ax + dz * vox - c[2])[:, None, None]
                    y = (ax + dy * vox - c[1])[None, :, None]
                    x = (ax + dx * vox - c[0])[None, None, :]
                    acc += (x * x + y * y + z * z <= radius * radius).astype(xp.float32)
        out += mu * acc / 8
    return out


def fdk_rows(a, xp, astra, tomoraster, gpu, L):
    import rabbit_geometry as geo
    L, views, cols, rows, pixel = ORBITS.get(L, (L, 2 * L, 2 * L, 2 * L, 256.0 * SDD / SID / (2 * L) * 1.1))
    vecs, _ = orbit_vectors(views, cols, rows, pixel)
    proj = geo.ball_projections(xp, vecs, cols, rows)  # (views, rows, cols) ours
    voxel = SIDE_MM / L
    mats = matrices_from_vectors(vecs, cols, rows)
    print(f"FDK {L}^3: our matrices vs the cone_vec rows: max {geo.check_geometry(mats, vecs, cols, rows):.1e} px")
    size = f"{L}^3, {views} views of {cols}x{rows}"
    if a.stages:  # where our time goes: the path before the pipeline, and the pipeline's clocks
        stages = {}
        host0 = None if a.no_host else xp.asnumpy(proj)
        for name, fn in (("old", lambda: fdk_stages.old_path(tomoraster, xp, proj, host0, mats, L, voxel)),
                         ("cupy", lambda: fdk_stages.pipeline(tomoraster, xp, proj, mats, L, voxel, a.reps)[0]),
                         ("numpy", lambda: fdk_stages.pipeline(tomoraster, xp, host0, mats, L, voxel, a.reps)[0]),
                         ("cupy_variants", lambda: fdk_stages.variants(tomoraster, xp, proj, mats, L, voxel, a.reps)),
                         ("numpy_variants", lambda: fdk_stages.variants(tomoraster, xp, host0, mats, L, voxel, a.reps,
                                                                        rings=(1024.0,)))):
            if name.startswith("numpy") and host0 is None:
                continue
            try:
                stages[name] = fn()
            except Exception as e:  # noqa: BLE001
                stages[name] = f"failed: {type(e).__name__}: {e}"
            print(f"FDK {L}^3 stages {name}: {json.dumps(stages[name])}", flush=True)
        del host0
        tomoraster.fdk.clear_cache()
        old = json.load(open(a.stages)) if os.path.exists(a.stages) else {}
        old[size] = stages
        with open(a.stages, "w") as f:
            json.dump(old, f, indent=1)
    timer = pt.Timer(xp)
    ours_call = lambda: tomoraster.fdk.fdk(proj, mats, (L, L, L), (voxel,) * 3, backend=BACKEND,  # noqa: E731
                                           interpolation="hardware", parker=False)
    ours_ms = timer.median(ours_call, a.reps)
    ours = timer.last
    truth = balls_volume(xp, L)
    m = slice(L // 10, L - L // 10)
    err = lambda v: float(xp.sqrt(((v[m, m, m] - truth[m, m, m]) ** 2).mean()) / truth.max())  # noqa: E731
    out = []
    if astra is None:
        return [pt.row("ASTRA", "-", "FDK_CUDA", size, gpu, None, ours_ms, f"ours NRMSE vs phantom {err(ours):.4f}",
                       "tomoraster.fdk.fdk (cuda, CuPy in/out)", a.astra_note)]
    h = SIDE_MM / 2
    vol_geom = astra.create_vol_geom(L, L, L, -h, h, -h, h, -h, h)
    sino = xp.ascontiguousarray(proj.transpose(1, 0, 2))  # ASTRA's (rows, views, cols)
    # ASTRA's own circular orbit: angle θ puts the source at SID·(sin θ, −cos θ, 0), so θ = β + 90°.
    angles = np.arange(views) * 2 * np.pi / views + np.pi / 2
    geoms = {"cone_vec": astra.create_proj_geom("cone_vec", rows, cols, vecs),
             "cone": astra.create_proj_geom("cone", pixel, pixel, rows, cols, angles, SID, SDD - SID)}

    def astra_fdk(geom, vol, sino, reps):
        """FDK_CUDA on these arrays (linked, not copied, by data3d.link): (median ms, volume)."""
        vid = astra.data3d.link("-vol", vol_geom, vol)
        sid = astra.data3d.link("-sino", geoms[geom], sino)
        cfg = astra.astra_dict("FDK_CUDA")
        cfg["ReconstructionDataId"], cfg["ProjectionDataId"] = vid, sid
        aid = astra.algorithm.create(cfg)
        try:
            return timer.median(lambda: astra.algorithm.run(aid, 1), reps, warmup=0 if reps == 1 else 1), vol
        finally:
            astra.algorithm.delete(aid)
            astra.data3d.delete([vid, sid])

    # The first of these whose volume correlates with ours (r > 0.9) is timed; the note names it
    # and what the others gave (a wrong geometry or a failed filter shows as r near 0).
    tried = []
    theirs_ms, how, used = None, "", None
    for geom, kind in (("cone_vec", "cupy"), ("cone_vec", "numpy"), ("cone", "cupy"), ("cone", "numpy")):
        try:
            vol = xp.zeros((L, L, L), xp.float32) if kind == "cupy" else np.zeros((L, L, L), np.float32)
            sn = sino.copy() if kind == "cupy" else xp.asnumpy(sino)
            _, vol = astra_fdk(geom, vol, sn, 1)
            r = pt.fit_scale(xp, ours[m, m, m], xp.asarray(vol)[m, m, m])[2]
        except Exception as e:  # noqa: BLE001
            tried.append(f"{geom}/{kind}: {type(e).__name__}: {e}")
            continue
        tried.append(f"{geom}/{kind}: r={r:.3f}")
        if r > 0.9:
            first = xp.array(vol, copy=True)  # compared below: the timed runs may reuse filtered data
            theirs_ms, _ = astra_fdk(geom, vol, sn, a.reps)
            vol = first
            how = f"{geom}, {'CuPy arrays linked (DLPack)' if kind == 'cupy' else 'NumPy arrays (its copies timed)'}"
            used = geom
            break
    if theirs_ms is None:
        theirs_ms, vol = astra_fdk("cone_vec", xp.zeros((L, L, L), xp.float32), sino.copy(), a.reps)
        how = "cone_vec, CuPy arrays linked; no variant agreed with ours"
    how += "; tried " + "; ".join(tried)
    print(f"FDK_CUDA {L}^3: {how}")
    theirs = xp.asarray(vol)
    ag = pt.agreement(xp, ours[m, m, m], theirs[m, m, m], "central 80%: ")
    ag += f"; NRMSE vs phantom: ASTRA {err(theirs):.4f}, ours {err(ours):.4f}"
    out.append(pt.row("ASTRA", astra.__version__, "FDK_CUDA", size, gpu, theirs_ms, ours_ms, ag,
                      "tomoraster.fdk.fdk (cuda pipeline, hardware interpolation, CuPy in/out)", how))
    if a.no_host:
        del proj, sino, vol, theirs, ours, truth
        xp.get_default_memory_pool().free_all_blocks()
        return out
    # Ours from host memory to host memory, as a user with NumPy arrays sees it (the pipeline
    # uploads chunks through page-locked buffers while the previous chunk is filtered and
    # back-projected; the volume comes back once).
    host = xp.asnumpy(proj)
    host_ms = pt.Timer(xp).median(lambda: tomoraster.fdk.fdk(host, mats, (L, L, L), (voxel,) * 3,
                                                             backend=BACKEND, interpolation="hardware", parker=False),
                                  max(1, a.reps // 2))
    out.append(pt.row("ASTRA", astra.__version__, "FDK_CUDA", size, gpu, theirs_ms, host_ms, "(same images)",
                      "tomoraster.fdk.fdk (cuda, NumPy in/out)", how))
    # ASTRA from NumPy too (its uploads and download timed), on the geometry that agreed above.
    if used is not None:
        try:
            vol_h = np.zeros((L, L, L), np.float32)
            np_ms, vol_h = astra_fdk(used, vol_h, xp.asnumpy(sino), max(1, a.reps // 2))
            ag = pt.agreement(xp, ours[m, m, m], xp.asarray(vol_h)[m, m, m], "central 80%: ")
            out.append(pt.row("ASTRA", astra.__version__, "FDK_CUDA", size, gpu, np_ms, host_ms, ag,
                              "tomoraster.fdk.fdk (cuda, NumPy in/out)",
                              f"both NumPy in/out: ASTRA {used} on NumPy arrays (its copies timed), ours uploads "
                              f"chunks (page-locked staging, a copy stream) and filters and back-projects on the GPU"))
        except Exception as e:  # noqa: BLE001
            print(f"FDK_CUDA {L}^3 from NumPy failed: {type(e).__name__}: {e}")
    del proj, sino, vol, theirs, ours, truth
    xp.get_default_memory_pool().free_all_blocks()
    return out


def projector_rows(a, gpu):
    """FP3D/BP3D/SIRT3D/CGLS3D at --projector-L through astra_iterative (ours: bench_fdk)."""
    import astra_side_by_side as sbs
    j = os.path.join(a.dump, "astra_iterative.json")
    args = ["--projector", "--bench", a.bench, "--dump", a.dump, "--projector-L", str(a.projector_L),
            "--projector-views", str(a.projector_views), "--projector-detector", a.projector_detector,
            "--projector-reps", str(a.reps), "--json", j]
    sbs.main(args)
    doc = json.load(open(j))
    size = f"{doc['L']}^3, {doc['views']} views of {doc['detector'][0]}x{doc['detector'][1]}"
    out = []
    for r in doc["rows"]:
        ag = f"c={r['scale_fit']:.4g}, rel L2 {r['rel_l2_fit']:.2e}" if "rel_l2_fit" in r else ""
        if r.get("note") and "NRMSE" in r["note"]:
            ag += "; " + r["note"]
        note = r["note"] if r.get("note") and "NRMSE" not in r["note"] else ""
        out.append(pt.row("ASTRA", doc["astra"], r["op"], size, gpu, r["astra_ms"], r["ours_ms"], ag,
                          "bench_fdk --projector: " + r["ours"], note))
    return out


def bp3d_rabbit_rows(a, gpu):
    """BP3D_CUDA on RabbitCT's geometry (496 views of 1248x960) through astra_side_by_side."""
    import astra_side_by_side as sbs
    j = os.path.join(a.dump, "astra_bp3d.json")
    sbs.main(["--sizes", ",".join(str(s) for s in a.bp_sizes), "--reps", str(a.reps), "--json", j])
    doc = json.load(open(j))
    out = []
    for r in doc["rows"]:
        for mode, o in r["ours"].items():
            ag = r.get("agreement")
            txt = (f"c={ag['scale_fit']:.4g} (predicted {ag['scale_predicted']:.4g}), rel L2 {ag['rel_l2_fit']:.2e}"
                   if ag and mode == ag.get("against") else "")
            out.append(pt.row("ASTRA", doc.get("astra") or "-", "BP3D_CUDA (RabbitCT)",
                              f"{r['L']}^3, {doc['projections']} views of {doc['detector'][0]}x{doc['detector'][1]}",
                              gpu, r.get("astra", {}).get("ms"), o.get("ms"), txt,
                              f"tomoraster.fdk.Backprojector (cuda, {mode}, CuPy out=)", o.get("error", "")))
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--fdk-sizes", default="256,512")
    p.add_argument("--bp-sizes", default="512")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--bench", default="bench/bench_fdk")
    p.add_argument("--dump", default="/tmp/tomoraster-peers-astra")
    p.add_argument("--projector-L", type=int, default=256)
    p.add_argument("--projector-views", type=int, default=360)
    p.add_argument("--projector-detector", default="512x512")
    p.add_argument("--no-projector", action="store_true", help="skip FP3D/BP3D/SIRT3D/CGLS3D")
    p.add_argument("--no-host", action="store_true", help="skip our FDK from NumPy to NumPy")
    p.add_argument("--stages", default="", help="JSON file for the stage breakdown of our FDK (fdk_stages.py)")
    p.add_argument("--out", default="peers.json")
    p.add_argument("--md", default="peers.md")
    a = p.parse_args(argv)
    a.fdk_sizes = [int(s) for s in a.fdk_sizes.split(",") if s]
    a.bp_sizes = [int(s) for s in a.bp_sizes.split(",") if s]
    os.makedirs(a.dump, exist_ok=True)
    import cupy as xp
    import tomoraster
    getattr(tomoraster, "quiet", lambda: None)()
    gpu = pt.gpu_name(xp)
    try:
        import astra
        if not astra.use_cuda():
            raise RuntimeError("astra.use_cuda() is False")
        a.astra_note = ""
        print(f"ASTRA {astra.__version__} from {os.path.dirname(astra.__file__)}; tomoraster {tomoraster.__version__}")
    except Exception as e:  # noqa: BLE001
        astra, a.astra_note = None, f"ASTRA not run: {type(e).__name__}: {e}"
        print(a.astra_note)
    rows = []
    for L in a.fdk_sizes:
        new = []
        pt.guarded(new, lambda: fdk_rows(a, xp, astra, tomoraster, gpu, L), "ASTRA", "-", "FDK_CUDA", f"{L}^3", gpu)
        pt.append(a.out, a.md, new)
        rows += new
    if astra is not None and not a.no_projector:
        new = []
        pt.guarded(new, lambda: projector_rows(a, gpu), "ASTRA", astra.__version__, "FP3D/BP3D/SIRT3D/CGLS3D",
                   f"{a.projector_L}^3", gpu)
        pt.append(a.out, a.md, new)
        rows += new
    if astra is not None and a.bp_sizes:
        new = []
        pt.guarded(new, lambda: bp3d_rabbit_rows(a, gpu), "ASTRA", astra.__version__, "BP3D_CUDA (RabbitCT)",
                   ",".join(map(str, a.bp_sizes)), gpu)
        pt.append(a.out, a.md, new)
        rows += new
    print(pt.markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
