#!/usr/bin/env python3
"""Relative L2 of each run's per-iteration images to the first run's: the growth of a difference
between runs (1 vs 2 vs 4 ranks, or one device run twice) over the iterations.

  bench/scale/compare_iterations.py one/ two/ four/      # image_iteration_<k>.nii and image.nii

NIfTI-1 float32 images only (what `run` writes); no NumPy needed."""
import array
import math
import os
import re
import struct
import sys


def floats(path):
    with open(path, "rb") as f:
        raw = f.read()
    end = "<" if struct.unpack("<i", raw[:4])[0] == 348 else ">"
    if struct.unpack(end + "h", raw[70:72])[0] != 16:
        raise SystemExit(f"{path}: not float32")
    offset = int(struct.unpack(end + "f", raw[108:112])[0])
    a = array.array("f")
    a.frombytes(raw[offset:offset + (len(raw) - offset) // 4 * 4])
    if end == ">":
        a.byteswap()
    return a


def rel_l2(a, b):
    num = sum((x - y) ** 2 for x, y in zip(a, b))
    den = sum(y * y for y in b)
    return math.sqrt(num / den) if den > 0 else float("nan")


def main():
    dirs = sys.argv[1:]
    if len(dirs) < 2:
        raise SystemExit(__doc__)
    its = sorted(int(m.group(1)) for n in os.listdir(dirs[0]) if (m := re.fullmatch(r"image_iteration_(\d+)\.nii", n)))
    files = [f"image_iteration_{k}.nii" for k in its] + ["image.nii"]
    print("image".ljust(24) + "".join(os.path.basename(d.rstrip("/")).rjust(14) for d in dirs[1:]))
    for f in files:
        ref = floats(os.path.join(dirs[0], f))
        cells = []
        for d in dirs[1:]:
            p = os.path.join(d, f)
            cells.append(f"{rel_l2(floats(p), ref):14.3g}" if os.path.exists(p) else "-".rjust(14))
        print(f.ljust(24) + "".join(cells), flush=True)


if __name__ == "__main__":
    main()
