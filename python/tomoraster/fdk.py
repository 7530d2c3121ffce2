"""fdk (seed 003, RabbitCT): the cone-beam back-projector on NumPy or GPU projection stacks.

Projections are (N, rows, cols) float32, already weighted and filtered as FDK needs (RabbitCT's
files carry such projections); matrices are (N, 3, 4) float64 mapping a world point (mm) to
homogeneous pixel coordinates (u·w, v·w, w). The volume comes back as (z, y, x) float32 with
f(i,j,k) = Σ_n bilinear(I_n, u_n, v_n) / w_n² at x = origin + i·voxel (RabbitCT's update rule).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from . import _core
from ._gpu import empty_like_kind, is_cuda_array, to_host


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

    @property
    def volume_shape(self) -> tuple:
        return tuple(self._op.volume_shape)

    def backproject(self, projections, matrices, out=None, accumulate: bool = False):
        """The volume (z, y, x) float32 of this stack. NumPy projections: a new NumPy volume.
        CUDA projections (CuPy, PyTorch; backend="cuda"): back-projected on the GPU where they lie
        into a new array of the same kind, or into ``out=`` (accumulate=True adds to it); the
        matrices may be NumPy or GPU arrays (they are small and go to the host)."""
        if is_cuda_array(projections) or is_cuda_array(out):
            out = empty_like_kind(projections, self.volume_shape, "projections") if out is None else out
            self._op.backproject_device(projections, to_host(matrices, "matrices"), out, accumulate)
            return out
        if out is not None or accumulate:
            raise ValueError("out/accumulate: only with CUDA arrays (NumPy volumes are returned new)")
        return self._op.backproject(projections, matrices)


def backproject(projections, matrices, voxels, voxel_mm, origin_mm=None, backend="auto", interpolation="exact"):
    """One call: a Backprojector on this grid, applied to this stack (CUDA arrays: backend="cuda")."""
    return Backprojector(voxels, voxel_mm, origin_mm, backend, interpolation).backproject(projections, matrices)
