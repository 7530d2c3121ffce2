"""Checks of Python arguments shared with the CLI.

Values that are scene keys in a run (iterations, μ, ...) go through the problem's own config
reader in C++ as --set overrides (``_core.check_keys``): the same ranges and the same words as
``tomoraster run --set``. Keyword arguments that no reader knows are a TypeError naming the
closest known key. Arrays of measured data are checked here for NaN and negative values.
"""
from __future__ import annotations

import difflib
import math
from typing import Any, Mapping

import numpy as np

from . import _core
from ._scene import _value


def flatten(prefix: str, table: Mapping[str, Any], out: dict | None = None) -> dict:
    """{"a": {"b": 1}} under prefix "p" → {"p.a.b": 1}; None values are left out."""
    out = {} if out is None else out
    for k, v in table.items():
        if isinstance(v, Mapping):
            flatten(f"{prefix}.{k}", v, out)
        elif v is not None:
            out[f"{prefix}.{k}"] = v
    return out


def _known(prefix: str, resolved: Any, out: list) -> list:
    if isinstance(resolved, Mapping):
        for k, v in resolved.items():
            _known(f"{prefix}.{k}" if prefix else k, v, out)
    else:
        out.append(prefix)
    return out


def check_keys(problem: str, values: Mapping[str, Any], what: str = "", keywords: bool = False) -> None:
    """The CLI's checks of `values` ({"oat.pls.iterations": 5}) on the problem's default scene:
    ValueError with the CLI's message for a value it refuses; with keywords=True, TypeError for a
    key no reader uses ("did you mean ...")."""
    if not values:
        return
    sets = [f"{k}={_toml(v)}" for k, v in values.items()]
    if not keywords and f"{problem}.iterations" in values and problem == "strip":
        sets.append("strip.save_iterations=[]")  # a run's outputs, not an argument of mlem
    try:
        unused, resolved = _core.check_keys(problem, sets)
    except ValueError as e:  # a reader that refuses unknown keys itself: for keywords a TypeError
        if keywords and "unknown key '" in str(e):
            raise TypeError(f"{what or problem}: {str(e).split(': ', 1)[-1]}") from None
        raise
    if not keywords:
        return
    import json
    table = json.loads(resolved).get(problem, {})
    known = [k for k in _known("", table, []) if f"{problem}.{k}" not in unused]
    for key in values:
        if key not in unused:
            continue
        short = key[len(problem) + 1:]
        close = difflib.get_close_matches(short, known, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else f" (the [{problem}] keys: docs/{problem}.md)"
        raise TypeError(f"{what or problem}: unknown keyword '{short}'{hint}")


def _toml(v) -> str:
    """A value as TOML, NaN and infinities included (the C++ reader names them as the CLI does)."""
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if v != v else ("inf" if v > 0 else "-inf")
    return _value(v)


def check_keywords(problem: str, keywords: Mapping[str, Any], what: str) -> None:
    """Keyword arguments named as the problem's TOML keys: TypeError for an unknown one."""
    check_keys(problem, flatten(problem, keywords), what, keywords=True)


def _show(v) -> str:
    return f"{float(v):g}"


def counts(name: str, a, what: str) -> None:
    """Measured counts: finite and >= 0, as the CLI's readers require (NumPy arrays only; a GPU
    array is checked on its device by its own library)."""
    if not isinstance(a, np.ndarray):
        xp = type(a).__module__.split(".")[0]
        bad = ~(a >= 0) if xp == "torch" else ~(a >= 0)
        if bool(bad.any()):
            raise ValueError(f"{what}: {name} has a value that is not finite and >= 0")
        return
    bad = ~np.isfinite(a) | (a < 0)
    if bad.any():
        i = int(np.flatnonzero(bad.ravel())[0])
        v = a.ravel()[i]
        raise ValueError(f"{what}: {name}[{i}] = {_show(v)}: counts must be finite and >= 0")


def finite(name: str, a, what: str) -> None:
    """Every value finite (NumPy arrays)."""
    if isinstance(a, np.ndarray) and a.size and not np.isfinite(a).all():
        i = int(np.flatnonzero(~np.isfinite(a).ravel())[0])
        raise ValueError(f"{what}: {name}[{i}] = {_show(a.ravel()[i])} is not finite")


def path(name: str, p) -> str:
    """A file or scene path: str or os.PathLike, never None or another object."""
    import os
    if p is None or not isinstance(p, (str, os.PathLike)):
        raise TypeError(f"{name}: a path (str or os.PathLike) is needed, got {type(p).__name__}")
    return os.fspath(p)


# tomoraster.quiet(): no progress bars from the Python side either.
quiet = False


def call(f, *args):
    """f(*args) with the C++ messages that name the CLI said in Python's words: "use --force"
    → force=True; the cuda backend on a build without CUDA → UnavailableError saying so."""
    try:
        return f(*args)
    except ValueError as e:
        msg = str(e)
        if "unknown backend 'cuda'" in msg:
            raise _core.UnavailableError(
                "backend 'cuda': this tomoraster was built without CUDA (nvcc was not found when it was "
                "installed); use backend=\"cpu\", \"gl-compute\" or \"auto\"") from None
        if "use --force" in msg:
            raise ValueError(msg.replace("use --force", "pass force=True")) from None
        raise


def progress_iter(steps, desc: str):
    """steps wrapped in a tqdm.auto bar (notebook widget or terminal) when tqdm is installed and
    tomoraster.quiet() is off."""
    if quiet:
        return steps
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return steps
    return tqdm(steps, desc=desc)


def progress_callback(callback, total: int, desc: str):
    """The user's callback, or a tqdm.auto bar when tqdm is installed, quiet() is off and no
    callback was given; else a no-op, so the C++ loop still calls into Python every iteration
    (where a pending Ctrl-C is raised)."""
    if callback is not None:
        return callback
    try:
        if quiet:
            raise ImportError
        from tqdm.auto import tqdm
    except ImportError:
        return lambda *_: None
    bar = tqdm(total=total, desc=desc)

    def step(it, *_):
        bar.update(1)
        if it >= total:
            bar.close()
    return step
