#!/usr/bin/env python3
"""The acceptance run's rows (the --json files of bench/scale.py) as one Markdown table: per problem
and rank count the per-iteration time (with the speed-up over the problem's 1-rank row), the whole
run and its stages in seconds.

  bench/scale/table_md.py OUT/*.json"""
import json
import sys

STAGES = ["startup", "reading", "simulation", "setup", "sensitivity", "iterations", "checks", "writing", "unaccounted"]


def main():
    rows = []
    for path in sys.argv[1:]:
        with open(path) as f:
            tag = path.rsplit("/", 1)[-1].removesuffix(".json")
            rows += [dict(r, tag=tag) for r in json.load(f)]
    if not rows:
        raise SystemExit(__doc__)
    one = {}  # each problem and backend's 1-rank row: the speed-ups' base
    for r in rows:
        if r["ranks"] == 1:
            one.setdefault((r["problem"], r.get("backend")), r)
    print("| run | ranks | per iteration | whole run (s) | " + " | ".join(STAGES) + " |")
    print("|---|---|---|---|" + "---|" * len(STAGES))
    for r in rows:
        it = r["per_iteration_ms"]
        base = one.get((r["problem"], r.get("backend")))
        speed = f" ({base['per_iteration_ms'] / it:.2f}×)" if base and r is not base and it > 0 else ""
        st = r["stages_ms"]
        print(f"| {r['tag']} | {r['ranks']} | {it:.1f} ms{speed} | {(r['wall_ms'] or 0) / 1e3:.2f} | " +
              " | ".join(f"{st.get(s, 0) / 1e3:.2f}" for s in STAGES) + " |")


if __name__ == "__main__":
    main()
