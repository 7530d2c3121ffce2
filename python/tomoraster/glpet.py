"""glpet (seed 004): PET between detector-module planes — the projector on NumPy arrays.

Images are (z, y, x) float32 arrays on the scene's grid; LOR vectors are the atlases of all
module pairs concatenated (docs/glpet.md §2).
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from . import _core
from ._gpu import empty_like_kind, is_cuda_array
from ._scene import scene_arguments


class Projector:
    """The system matrix A of a glpet scene on one backend (cpu, gl, gl-compute, cuda, auto).

    ``forward(x)`` = A x, ``back(y)`` = Aᵀ y (its exact adjoint up to float rounding).
    With backend="cuda", x and y may be CUDA arrays (CuPy, PyTorch, anything with DLPack): they
    are used on the GPU and the result is the same kind of array (or ``out=``, written in place).
    """

    def __init__(self, scene: str | Mapping[str, Any] | None = None, backend: str = "auto",
                 set: Mapping[str, Any] | None = None):
        text, is_text, sets = scene_arguments(scene, set)
        self._op = _core.GlpetProjector(text, is_text, sets, backend)

    @property
    def image_shape(self) -> tuple:
        return tuple(self._op.image_shape)

    @property
    def lor_count(self) -> int:
        return self._op.lor_count

    @property
    def backend(self) -> str:
        return self._op.describe()

    def forward(self, x, out=None):
        if is_cuda_array(x) or is_cuda_array(out):
            out = empty_like_kind(x, (self.lor_count,), "x") if out is None else out
            self._op.forward_device(x, out)
            return out
        return _into(self._op.forward(x), out)

    def back(self, y, out=None):
        if is_cuda_array(y) or is_cuda_array(out):
            out = empty_like_kind(y, self.image_shape, "y") if out is None else out
            self._op.back_device(y, out)
            return out
        return _into(self._op.back(y), out)

    def sensitivity(self) -> np.ndarray:
        return self._op.sensitivity()


def _into(result: np.ndarray, out):
    """NumPy results into the caller's out= array (one copy), or as they are."""
    if out is None:
        return result
    if not isinstance(out, np.ndarray) or out.shape != result.shape or out.dtype != result.dtype:
        raise ValueError(f"out: a NumPy float32 array of shape {result.shape} is needed here")
    out[...] = result
    return out


def mlem(projector: Projector, y: np.ndarray, iterations: int = 10, x0: np.ndarray | None = None, callback=None):
    """ML-EM (seed 004 eq. (3)) on the host around the projector: x ← x · Aᵀ(y/Ax) / Aᵀ1.

    callback(iteration, x) after each iteration; return False from it to stop. With tqdm
    installed and no callback, a progress bar is shown.
    """
    y = np.ascontiguousarray(y, dtype=np.float32)
    s = projector.sensitivity()
    x = np.where(s > 0, 1.0, 0.0).astype(np.float32) if x0 is None else np.array(x0, dtype=np.float32)
    steps = range(1, iterations + 1)
    if callback is None:
        try:
            from tqdm import tqdm
            steps = tqdm(steps, desc="glpet ML-EM")
        except ImportError:
            pass
    for it in steps:
        yt = projector.forward(x)
        ratio = np.where(yt > 0, y / np.where(yt > 0, yt, 1), 0).astype(np.float32)
        b = projector.back(ratio)
        x = np.where(s > 0, x * b / np.where(s > 0, s, 1), 0).astype(np.float32)
        if callback is not None and callback(it, x) is False:
            break
    return x
