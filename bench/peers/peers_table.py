"""The side-by-side table every peer script appends to: one JSON list of rows and its Markdown
rendering, timing with CUDA events and the image comparisons, shared by bench/peers/*.py.

A row: peer, version, operation, size, gpu, peer_ms, ours_ms, ratio (peer_ms / ours_ms: above 1
we are faster), agreement (one line: what was compared, the convention taken out, the numbers),
ours (which of our entry points), note. Missing times stay None and print as "-".
"""
from __future__ import annotations

import json
import math
import os
import statistics
import time

FIELDS = ("peer", "version", "operation", "size", "gpu", "peer_ms", "ours_ms", "ratio", "agreement", "ours", "note")


def row(peer, version, operation, size, gpu, peer_ms, ours_ms, agreement="", ours="", note=""):
    """One table row; ratio = peer_ms / ours_ms where both are positive finite times."""
    ok = lambda v: isinstance(v, (int, float)) and math.isfinite(v) and v > 0  # noqa: E731
    return dict(peer=peer, version=version, operation=operation, size=size, gpu=gpu,
                peer_ms=float(peer_ms) if ok(peer_ms) else None, ours_ms=float(ours_ms) if ok(ours_ms) else None,
                ratio=peer_ms / ours_ms if ok(peer_ms) and ok(ours_ms) else None,
                agreement=agreement, ours=ours, note=note)


def load(json_path):
    """The rows already in json_path ([] when it does not exist yet)."""
    if not os.path.exists(json_path):
        return []
    with open(json_path) as f:
        rows = json.load(f)
    if not isinstance(rows, list):
        raise ValueError(f"{json_path}: a JSON list of rows expected")
    return rows


def _cell(v, fmt="{:.3g}"):
    if v is None:
        return "-"
    if isinstance(v, float):
        return fmt.format(v)
    return str(v).replace("|", "\\|").replace("\n", " ")


def markdown(rows):
    """The rows as one Markdown table, in the order given."""
    head = "| peer | version | operation | size | GPU | peer ms | ours ms | peer/ours | agreement | ours | note |"
    out = [head, "|" + "---|" * 11]
    for r in rows:
        cells = [_cell(r.get("peer")), _cell(r.get("version")), _cell(r.get("operation")), _cell(r.get("size")),
                 _cell(r.get("gpu")), _cell(r.get("peer_ms"), "{:.2f}"), _cell(r.get("ours_ms"), "{:.2f}"),
                 _cell(r.get("ratio"), "{:.2f}x"), _cell(r.get("agreement")), _cell(r.get("ours")),
                 _cell(r.get("note"))]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def append(json_path, md_path, new_rows):
    """Adds new_rows to json_path (atomically) and rewrites md_path from all rows; returns all rows."""
    for r in new_rows:
        missing = [k for k in FIELDS if k not in r]
        if missing:
            raise ValueError(f"row {r!r}: missing {missing}")
    rows = load(json_path) + list(new_rows)
    for path, text in ((json_path, json.dumps(rows, indent=1) + "\n"), (md_path, markdown(rows))):
        if path:
            tmp = path + ".tmp"
            with open(tmp, "w") as f:
                f.write(text)
            os.replace(tmp, path)
    return rows


def fit_scale(xp, ours, theirs):
    """(c, relative L2 of theirs/c − ours, Pearson r): c fitted by least squares (theirs ≈ c·ours),
    sums in float64 without float64 copies of the arrays."""
    o = xp.asarray(ours, dtype=xp.float32).ravel()
    t = xp.asarray(theirs, dtype=xp.float32).ravel()
    oo = float((o * o).sum(dtype=xp.float64))
    if oo == 0:
        return float("nan"), float("nan"), float("nan")
    c = float((o * t).sum(dtype=xp.float64)) / oo
    d = t / c - o if c != 0 else t - o
    rel = math.sqrt(float((d * d).sum(dtype=xp.float64)) / oo)
    om, tm = float(o.mean(dtype=xp.float64)), float(t.mean(dtype=xp.float64))
    cov = float(((o - om) * (t - tm)).sum(dtype=xp.float64))
    so = float(((o - om) ** 2).sum(dtype=xp.float64))
    st = float(((t - tm) ** 2).sum(dtype=xp.float64))
    r = cov / math.sqrt(so * st) if so > 0 and st > 0 else float("nan")
    return c, rel, r


def agreement(xp, ours, theirs, what="", expected_c=None):
    """One line for the table: the fitted constant (and the expected one), rel L2 and r."""
    c, rel, r = fit_scale(xp, ours, theirs)
    exp = f" (expected {expected_c:.4g})" if expected_c is not None else ""
    return f"{what}c={c:.4g}{exp}, rel L2 {rel:.2e}, r={r:.5f}"


class Timer:
    """Median milliseconds of fn() over `reps` runs after `warmup` runs (JIT, plans, uploads of a
    first call stay out): CUDA events on the current stream around each run on the GPU, the wall
    clock after a device synchronisation otherwise. `.last` keeps the last result."""

    def __init__(self, xp=None):
        self.xp = xp
        self.gpu = xp is not None and xp.__name__.startswith("cupy")

    def one(self, fn):
        if not self.gpu:
            t0 = time.perf_counter()
            out = fn()
            return out, (time.perf_counter() - t0) * 1e3
        cp = self.xp
        cp.cuda.Device().synchronize()
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        out = fn()
        stop.record()
        stop.synchronize()
        return out, cp.cuda.get_elapsed_time(start, stop)

    def median(self, fn, reps=5, warmup=1):
        for _ in range(warmup):
            self.last, _ = self.one(fn)
        ms = []
        for _ in range(reps):
            self.last, t = self.one(fn)
            ms.append(t)
        self.runs = ms
        return statistics.median(ms)


def gpu_name(xp):
    """The device's name (CuPy), or "cpu"."""
    try:
        return xp.cuda.runtime.getDeviceProperties(xp.cuda.Device().id)["name"].decode()
    except Exception:  # noqa: BLE001  (NumPy, or no device)
        return "cpu"


def guarded(rows, make, peer, version, operation, size, gpu):
    """rows += make() (a list of rows); a failure becomes one row saying what stopped it."""
    try:
        rows.extend(make())
    except Exception as e:  # noqa: BLE001  (one failed comparison must not cost the others)
        print(f"{peer} {operation} {size}: failed: {type(e).__name__}: {e}", flush=True)
        rows.append(row(peer, version, operation, size, gpu, None, None, note=f"failed: {type(e).__name__}: {e}"))
