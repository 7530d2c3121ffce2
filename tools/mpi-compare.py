#!/usr/bin/env python3
"""Compares glpet runs on several devices (docs/multigpu.md, "Cluster"): per-iteration times of
rank 0 from each run's report.json, and the relative L2 difference of their activity.nii to the
first run. Standard library only (the GPU machines' Python need not have NumPy).

    tools/mpi-compare.py out/ring-1x2 out/ring-2x1 [--json table.json]
"""
import argparse
import json
import math
import struct
import sys
from array import array
from pathlib import Path

STAGES = ("forward", "back_ratio", "allreduce", "update")


def read_nifti_floats(path):
    raw = path.read_bytes()
    if len(raw) < 352 or struct.unpack_from("<i", raw, 0)[0] != 348:
        sys.exit(f"{path}: not a little-endian NIfTI-1 file")
    datatype = struct.unpack_from("<h", raw, 70)[0]
    offset = int(struct.unpack_from("<f", raw, 108)[0])
    if datatype != 16:
        sys.exit(f"{path}: datatype {datatype}, expected 16 (float32)")
    values = array("f")
    values.frombytes(raw[offset:offset + (len(raw) - offset) // 4 * 4])
    return values


def relative_l2(a, b):
    if len(a) != len(b):
        return float("nan")
    num = sum((x - y) ** 2 for x, y in zip(a, b))
    den = sum(y * y for y in b)
    return math.sqrt(num / den) if den > 0 else float("nan")


def summary(run):
    report = json.loads((run / "report.json").read_text())
    timings = report.get("timings_ms", {})
    multi = report.get("multi_gpu", {})
    iterations = max((timings.get(s, {}).get("calls", 0) for s in STAGES), default=0)
    per_it = {s: timings.get(s, {}).get("total_ms", 0.0) / max(iterations, 1) for s in STAGES}
    return {
        "run": str(run),
        "processes": multi.get("processes", 1),
        "ranks": multi.get("ranks", 1),
        "mode": multi.get("mode", "single"),
        "iterations": iterations,
        "per_iteration_ms": sum(per_it.values()),
        "stages_ms": per_it,
        "sensitivity_ms": timings.get("sensitivity", {}).get("total_ms", 0.0),
        "nrmse": report.get("metrics", {}).get("nrmse"),
        "team": multi.get("team", ""),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", type=Path, help="output folders of tomoraster run")
    ap.add_argument("--json", type=Path, help="write the table as JSON")
    args = ap.parse_args()
    rows = [summary(r) for r in args.runs]
    first = read_nifti_floats(args.runs[0] / "activity.nii")
    for row, run in zip(rows, args.runs):
        row["relative_l2_to_first"] = relative_l2(read_nifti_floats(run / "activity.nii"), first)
    print("| run | processes x ranks | per iteration (ms) | forward | back_ratio | allreduce | update "
          "| sensitivity (ms) | NRMSE | rel. L2 to first |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        s = r["stages_ms"]
        nrmse = f"{r['nrmse']:.4f}" if r["nrmse"] is not None else "-"
        print(f"| {r['run']} | {r['processes']} x {r['ranks'] // max(r['processes'], 1)} | {r['per_iteration_ms']:.1f} "
              f"| {s['forward']:.1f} | {s['back_ratio']:.1f} | {s['allreduce']:.2f} | {s['update']:.2f} "
              f"| {r['sensitivity_ms']:.0f} | {nrmse} | {r['relative_l2_to_first']:.3g} |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
