"""Scenes from Python: a path, an embedded name, or a dict turned into TOML text."""
from __future__ import annotations

import math
import os
from typing import Any, Mapping


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"scene value {v!r} is not finite")
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if hasattr(v, "tolist"):  # NumPy arrays and scalars
        return _value(v.tolist())
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(f"scene value {v!r} of type {type(v).__name__} has no TOML form")


def _table(prefix: str, d: Mapping[str, Any], lines: list[str]) -> None:
    subtables, arrays = [], []
    for k, v in d.items():
        if isinstance(v, Mapping):
            subtables.append((k, v))
        elif isinstance(v, (list, tuple)) and v and all(isinstance(x, Mapping) for x in v):
            arrays.append((k, v))
        else:
            lines.append(f"{k} = {_value(v)}")
    for k, v in subtables:
        name = f"{prefix}.{k}" if prefix else k
        lines.append(f"\n[{name}]")
        _table(name, v, lines)
    for k, items in arrays:
        name = f"{prefix}.{k}" if prefix else k
        for item in items:
            lines.append(f"\n[[{name}]]")
            _table(name, item, lines)


def to_toml(scene: Mapping[str, Any]) -> str:
    """A scene dict ({"problem": "glpet", "glpet": {...}}) as TOML text."""
    lines: list[str] = []
    _table("", scene, lines)
    return "\n".join(lines) + "\n"


def scene_arguments(scene, overrides):
    """(text or path, is_text, ["key=value", ...]) for the C++ side."""
    if overrides is not None and not isinstance(overrides, Mapping):
        raise TypeError(f"set: a dict {{key: value}} is needed (the CLI's --set key=value), got "
                        f"{type(overrides).__name__}")
    sets = [f"{k}={_value(v)}" for k, v in (overrides or {}).items()]
    if scene is None:
        return "", False, sets
    if isinstance(scene, Mapping):
        return to_toml(scene), True, sets
    if not isinstance(scene, (str, os.PathLike)):
        raise TypeError(f"scene: a path, an embedded scene's name, a dict or None is needed, got "
                        f"{type(scene).__name__}")
    return os.fspath(scene), False, sets


def problem_scene(problem: str, scene, overrides, keys: Mapping[str, Any]):
    """Arguments for an operator of `problem`: its scene (None: the problem's defaults), with
    `set=` overrides and keyword arguments as keys of the problem's table (voxels=[8, 8, 8] →
    "<problem>.voxels"; a dict value is a sub-table: pls={"iterations": 3} → "<problem>.pls.iterations"),
    the same keys as its TOML section (docs/<problem>.md)."""
    from ._checks import check_keywords, flatten
    if overrides is not None and not isinstance(overrides, Mapping):
        scene_arguments(None, overrides)  # its TypeError
    check_keywords(problem, keys, problem)  # a typo is a TypeError, not the default silently
    sets = dict(overrides or {})
    sets.update(flatten(problem, keys))
    return scene_arguments({"problem": problem} if scene is None else scene, sets)
