#!/usr/bin/env python3
"""Time to image on 1, 2, 4, 8 GPUs: runs each problem through the CLI and prints, per problem and
rank count, the per-iteration time, the whole run (wall time from the process start) and the
stage split of report.json's "stages" (docs/multigpu.md, "Time to image").

  bench/scale.py --cli build/apps/tomoraster --backend cuda --gpus 1,2 --out scale-out
  bench/scale.py --cli build/apps/tomoraster --backend cpu --gpus 1,2 --small   # CI-sized scenes

Several ranks run as `--gpus N` in one process, or with --mpirun as N processes of one GPU each
(`mpirun --bind-to none -np N … --gpus 1`). A problem that runs on one device only is run once.
Writes the table as JSON too (--json)."""
import argparse
import json
import os
import shlex
import subprocess
import sys
import time

STAGES = ["startup", "reading", "simulation", "setup", "sensitivity", "iterations", "checks", "writing", "unaccounted"]

# (problem, scene and settings, iterations key, runs on several ranks). The seed's sizes; --small: CI's.
FULL = [
    ("glpet-ring", "glpet_ring.toml", "glpet.iterations", True),
    ("glpet-2plane", "glpet_default.toml", "glpet.iterations", True),
    ("safir", "safir_seed.toml", "safir.iterations", True),
    ("strip", "strip_default.toml --set strip.events={strip_events} --set strip.save_iterations=[]", "strip.iterations", True),
    ("fdk", "fdk_rabbitct.toml", None, True),
    ("fdk-512", "fdk_default.toml --set fdk.L=512", None, True),
    ("fdk-1024", "fdk_rabbitct.toml --set fdk.L=1024", None, True),
    ("oat-fbp", "oat_paper.toml --set 'oat.algorithms=[\"fbp\"]'", None, False),
    ("glpet-2plane-256", "glpet_default.toml --set glpet.voxels=[256,256,256] --set glpet.voxel_mm=[0.25,0.25,0.25]"
                         " --set glpet.iterations=2", "glpet.iterations", True),
    ("oat-sph", "oat_sph.toml", "oat.pls.iterations", True),
]
SMALL = [
    ("glpet", "default.toml --set glpet.voxels=[12,12,6] --set glpet.voxel_mm=[2.5,2.5,2.5] --set glpet.iterations=3"
              " --set glpet.mc.histories=100000", "glpet.iterations", True),
    ("strip", "strip_default.toml --set strip.events=20000 --set strip.iterations=2 --set strip.save_iterations=[2]",
     "strip.iterations", True),
    ("safir", "safir_default.toml --set safir.rings=8 --set safir.crystals=48 --set safir.image=[20,20,8]"
              " --set safir.voxel_mm=2.0 --set safir.events=20000 --set safir.iterations=2", "safir.iterations", True),
    ("fdk", "fdk_default.toml --set fdk.L=32 --set fdk.geometry.projections=62 --set fdk.geometry.detector_columns=156"
            " --set fdk.geometry.detector_rows=120 --set fdk.geometry.pixel_mm=2.56", None, True),
]


def iterations_of(report, key):
    if not key:
        return 1
    node = report.get("scene", {})
    for part in key.split("."):
        node = node.get(part, {}) if isinstance(node, dict) else {}
    return node if isinstance(node, int) and node > 0 else 1


def per_iteration_ms(rep, timings, row):
    """glpet: rank 0's passes (after synchronize); strip: the mean of its iterations' own times;
    safir: its reconstruction time over frames and iterations; elsewhere the iterations stage."""
    passes = [v["total_ms"] for k, v in timings.items() if k in ("forward", "back_ratio", "update") or "reduce" in k]
    if passes:
        return sum(passes) / row["iterations"]
    its = [t["iterate_ms"] for t in rep.get("strip_iterations", []) if "iterate_ms" in t]
    if its:
        return sum(its) / len(its)
    m = rep.get("metrics", {})
    if "reconstruction_ms" in m:
        return m["reconstruction_ms"] / (row["iterations"] * max(1, int(m.get("frames", 1))))
    return row["stages_ms"].get("iterations", 0) / row["iterations"]


def run_one(a, name, scene, gpus, multi):
    out = os.path.join(a.out, f"{name}-{gpus}")
    cmd = [a.cli, "--no-progress", "-q", "run"] + shlex.split(scene) + shlex.split(a.set) + ["--backend", a.backend,
                                                                                         "-o", out, "--force"]
    if multi and gpus > 1:
        if a.mpirun:
            cmd = shlex.split(a.mpirun) + ["--bind-to", "none", "-np", str(gpus)] + cmd + ["--gpus", "1"]
        else:
            cmd += ["--gpus", str(gpus)]
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    outside_ms = (time.monotonic() - t0) * 1e3
    if r.returncode != 0:
        print(f"{name} on {gpus}: exit {r.returncode}: {(r.stderr or r.stdout).strip()[-400:]}", file=sys.stderr)
        return None
    with open(os.path.join(out, "report.json")) as f:
        rep = json.load(f)
    st = rep.get("stages", {})
    return {"problem": name, "backend": a.backend, "ranks": gpus if multi else 1, "wall_ms": st.get("wall_ms"), "process_ms": outside_ms,
            "stages_ms": st.get("ms", {}), "timings": rep.get("timings_ms", {})}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cli", default="build/apps/tomoraster")
    p.add_argument("--backend", default="cuda")
    p.add_argument("--gpus", default="1,2", help="rank counts, e.g. 1,2,4,8")
    p.add_argument("--mpirun", default="", help="e.g. 'mpirun' (one process per GPU) instead of --gpus N in one process")
    p.add_argument("--small", action="store_true", help="CI-sized scenes")
    p.add_argument("--only", default="", help="comma-separated problem names")
    p.add_argument("--out", default="scale-out")
    p.add_argument("--json", default="")
    p.add_argument("--set", default="", help="more CLI arguments for every run, e.g. \"--set glpet.iterations=3\"")
    p.add_argument("--label", default="", help="a tag printed on every row (e.g. the launcher)")
    p.add_argument("--strip-events", type=int, default=100_000_000, help="strip's events (the seed's 10^8)")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    counts = [int(x) for x in a.gpus.split(",") if x]
    rows = []
    print(f"{'problem':14s} {'ranks':>5s} {'per-it ms':>10s} {'whole s':>8s} " + " ".join(f"{s[:8]:>8s}" for s in STAGES),
          flush=True)
    for name, scene, it_key, multi in SMALL if a.small else FULL:
        if a.only and name not in a.only.split(","):
            continue
        for g in counts if multi else counts[:1]:
            row = run_one(a, name, scene.replace("{strip_events}", str(a.strip_events)), g, multi)
            if row is None:
                continue
            with open(os.path.join(a.out, f"{name}-{g}", "report.json")) as f:
                rep = json.load(f)
            row["iterations"] = iterations_of(rep, it_key)
            tm = row.pop("timings", {})
            row["per_iteration_ms"] = per_iteration_ms(rep, tm, row)
            rows.append(row)
            st = row["stages_ms"]  # each row as it comes: a run cut short by a time limit keeps the rows before it
            print(f"{a.label}{name:14s} {row['ranks']:5d} {row['per_iteration_ms']:10.1f} {(row['wall_ms'] or 0) / 1e3:8.2f} " +
                  " ".join(f"{st.get(s, 0) / 1e3:8.2f}" for s in STAGES), flush=True)
    print("(stages in s; whole = wall time from the process start to the report)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
