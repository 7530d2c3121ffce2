"""fdk (seed 003, RabbitCT): the cone-beam back-projector on NumPy projection stacks.

Projections are (N, rows, cols) float32, already weighted and filtered as FDK needs (RabbitCT's
files carry such projections); matrices are (N, 3, 4) float64 mapping a world point (mm) to
homogeneous pixel coordinates (u·w, v·w, w). The volume comes back as (z, y, x) float32 with
f(i,j,k) = Σ_n bilinear(I_n, u_n, v_n) / w_n² at x = origin + i·voxel (RabbitCT's update rule).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from . import _core


class Backprojector:
    def __init__(self, voxels: Sequence[int], voxel_mm: Sequence[float], origin_mm: Sequence[float] | None = None,
                 backend: str = "auto", interpolation: str = "exact"):
        voxels = [int(v) for v in voxels]
        voxel_mm = [float(v) for v in voxel_mm]
        if origin_mm is None:  # centred on the world origin
            origin_mm = [-(n - 1) / 2 * d for n, d in zip(voxels, voxel_mm)]
        self._op = _core.FdkBackprojector(backend, voxels, voxel_mm, [float(o) for o in origin_mm], interpolation)

    @property
    def backend(self) -> str:
        return self._op.describe()

    def backproject(self, projections: np.ndarray, matrices: np.ndarray) -> np.ndarray:
        return self._op.backproject(projections, matrices)


def backproject(projections, matrices, voxels, voxel_mm, origin_mm=None, backend="auto", interpolation="exact"):
    """One call: a Backprojector on this grid, applied to this stack."""
    return Backprojector(voxels, voxel_mm, origin_mm, backend, interpolation).backproject(projections, matrices)
