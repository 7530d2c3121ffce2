"""glpet (seed 004): PET between detector-module planes — the projector on NumPy arrays.

Images are (z, y, x) float32 arrays on the scene's grid; LOR vectors are the atlases of all
module pairs concatenated (docs/glpet.md §2).
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from . import _core
from ._scene import scene_arguments


class Projector:
    """The system matrix A of a glpet scene on one backend (cpu, gl, gl-compute, cuda, auto).

    ``forward(x)`` = A x, ``back(y)`` = Aᵀ y (its exact adjoint up to float rounding).
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

    def forward(self, x: np.ndarray) -> np.ndarray:
        return self._op.forward(x)

    def back(self, y: np.ndarray) -> np.ndarray:
        return self._op.back(y)

    def sensitivity(self) -> np.ndarray:
        return self._op.sensitivity()


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
