"""The reconstruction layer's keywords (docs/pet.md), shared by glpet, safir and strip.

The keywords are the scene keys of `[<problem>]`: ``algorithm``, ``subsets``, ``subset_order``,
``subset_seed``, ``prior`` ({"beta", "gamma", "epsilon"}), ``relaxation``, ``preconditioner``,
``relaxation_decay``, ``attenuation_map``, ``normalisation``, ``randoms`` and ``scatter``
({"fraction"} or {"file"}), ``initial_image`` and ``save_iterations``. They become
``<problem>.<key>=value`` overrides of the projector's scene, read by the problem's own C++
reader: None leaves the scene's value (or the reader's default), and a bad value is the
ValueError the CLI's ``--set`` gives, in its words. Arrays may stand for the .npy files
(normalisation, randoms/scatter files; written to a temporary folder for the call) and for the
start image.
"""
from __future__ import annotations

import difflib
import os
import tempfile
from typing import Any, Mapping

import numpy as np

from ._scene import _value

PRIOR_KEYS = ("beta", "gamma", "epsilon")
TERM_KEYS = ("fraction", "file")


def _subkeys(what: str, table: Mapping[str, Any], allowed: tuple) -> None:
    if not isinstance(table, Mapping):
        raise TypeError(f"{what}: a dict {{{', '.join(allowed)}}} is needed, got {type(table).__name__}")
    for k in table:
        if k not in allowed:
            close = difflib.get_close_matches(str(k), allowed, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else f" (known: {', '.join(allowed)})"
            raise TypeError(f"{what}: unknown keyword '{k}'{hint}")


class Keys:
    """The overrides of one reconstruction call and the files its arrays were written to."""

    def __init__(self, problem: str, what: str, iterations, keys: Mapping[str, Any], image_shape, image_dtype):
        self.problem, self.what = problem, what
        self._dir = None
        self.sets: list[str] = []
        self.x0 = None
        if iterations is not None:
            self._set("iterations", iterations)
        saves = keys.pop("save_iterations", None)
        self.saving = saves is not None
        self._set("save_iterations", [] if saves is None else list(np.atleast_1d(saves).tolist()))
        start = keys.pop("initial_image", None)
        if isinstance(start, np.ndarray):
            if start.shape != tuple(image_shape):
                raise ValueError(f"{what}: initial_image has shape {start.shape}, the image is {tuple(image_shape)}")
            bad = ~np.isfinite(start) | (start < 0)
            if bad.any():
                i = int(np.flatnonzero(bad.ravel())[0])
                raise ValueError(f"{what}: initial_image[{i}] = {float(start.ravel()[i]):g}; a start image is "
                                 f"finite and >= 0")
            self.x0 = np.ascontiguousarray(start, dtype=image_dtype)
        elif start is not None:
            self._set("initial_image", self._path("initial_image", start))
        prior = keys.pop("prior", None)
        if prior is not None:
            _subkeys(f"{what}: prior", prior, PRIOR_KEYS)
            for k, v in prior.items():
                if v is not None:
                    self._set(f"prior.{k}", v)
        for term in ("randoms", "scatter"):
            v = keys.pop(term, None)
            if v is None:
                continue
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                v = {"fraction": v}
            elif isinstance(v, (np.ndarray, str, os.PathLike)):
                v = {"file": v}
            _subkeys(f"{what}: {term}", v, TERM_KEYS)
            if v.get("fraction") is not None:
                self._set(f"{term}.fraction", v["fraction"])
            if v.get("file") is not None:
                self._set(f"{term}.file", self._file(f"{term}.file", v["file"]))
        for k in ("attenuation_map",):
            if keys.get(k) is not None:
                self._set(k, self._path(k, keys.pop(k)))
        if keys.get("normalisation") is not None:
            self._set("normalisation", self._file("normalisation", keys.pop("normalisation")))
        for k, v in keys.items():
            if v is not None:
                self._set(k, v)

    def _set(self, key: str, v) -> None:
        self.sets.append(f"{self.problem}.{key}={_value(v)}")

    def _path(self, key: str, p) -> str:
        if not isinstance(p, (str, os.PathLike)):
            raise TypeError(f"{self.what}: {key}: a path (str or os.PathLike) is needed, got {type(p).__name__}")
        return os.fspath(p)

    def _file(self, key: str, v) -> str:
        """A path as it is; an array written to a .npy file of this call."""
        if not isinstance(v, np.ndarray):
            return self._path(key, v)
        if self._dir is None:
            self._dir = tempfile.TemporaryDirectory(prefix="tomoraster-")
        path = os.path.join(self._dir.name, key.replace(".", "_") + ".npy")
        np.save(path, np.ascontiguousarray(v, dtype=np.float64))
        return path

    def close(self) -> None:
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()
