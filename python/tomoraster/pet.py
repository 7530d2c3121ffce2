"""PET primitives on arrays: ``LineProjector``, Joseph's LOR-driven line projector (non-TOF) on
arbitrary line end points over a voxel grid, the operator of parallelproj's ``joseph3d`` (and of
STIR's and CASToR's ray-driven projectors). docs/pet.md.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from . import _checks, _core
from ._gpu import apply, to_host


def _triple(value, name: str, kind) -> list:
    try:
        vals = [kind(v) for v in value]
    except (TypeError, ValueError):
        raise ValueError(f"LineProjector: {name} must be 3 numbers, got {value!r}") from None
    if len(vals) != 3:
        raise ValueError(f"LineProjector: {name} must be 3 numbers, got {len(vals)}")
    return vals


class LineProjector:
    """Joseph's ray-driven projector ([Joseph1982]) for lines of response between two points.

    ``endpoints``: (N, 2, 3) or (N, 6) array, each line's first then second end point (x, y, z) in
    mm. ``shape``: the image's (nz, ny, nx) (a (z, y, x) array, x fastest); ``voxel_size`` and
    ``origin`` (the centre of voxel (0, 0, 0)) in (x, y, z) mm, as
    ``glpet.Projector.lor_endpoints()`` gives them. ``backend``: "cpu" (double), "cuda" (float32)
    or "auto"; the GL backends are not implemented for this operator (ValueError).

    ``forward(x)``: one value per line, the line integral of the image in mm (each plane of voxel
    centres along the line's dominant axis sampled bilinearly, weighed by the step length);
    ``back(y)``: its exact adjoint. NumPy arrays (float64 or float32) give new float64 arrays;
    CUDA arrays (CuPy, PyTorch; float32, backend "cuda") are used in place, into ``out=`` or a new
    array of the same kind.
    """

    def __init__(self, endpoints, shape: Sequence[int], voxel_size: Sequence[float],
                 origin: Sequence[float], backend: str = "cpu"):
        ends = np.asarray(to_host(endpoints, "endpoints"), dtype=np.float64)
        if ends.ndim == 3 and ends.shape[1:] == (2, 3):
            ends = ends.reshape(-1, 6)
        elif not (ends.ndim == 2 and ends.shape[1] == 6):
            raise ValueError(f"LineProjector: endpoints must have shape (N, 2, 3) or (N, 6), got {ends.shape}")
        nz, ny, nx = _triple(shape, "shape", int)
        self._op = _checks.call(_core.LineProjector, np.ascontiguousarray(ends), [nx, ny, nz],
                                _triple(voxel_size, "voxel_size", float), _triple(origin, "origin", float),
                                str(backend))

    def __repr__(self) -> str:
        return f"tomoraster.pet.LineProjector(backend={self.backend!r}, lines={self.out_shape[0]}, shape={self.in_shape})"

    @property
    def backend(self) -> str:
        return self._op.describe()

    @property
    def in_shape(self) -> tuple:
        """The image's shape (nz, ny, nx)."""
        return tuple(self._op.image_shape())

    @property
    def out_shape(self) -> tuple:
        """(N,): one value per line."""
        return (self._op.lines(),)

    def forward(self, x, out=None):
        """A x: the line integrals (mm × image units) of image x, shape in_shape."""
        return apply(x, out, self.out_shape, "x", self._op.forward_device,
                     lambda a: self._op.forward(_host(a, self.in_shape, "x")))

    def back(self, y, out=None):
        """Aᵀ y: the adjoint, an image of in_shape from one value per line."""
        return apply(y, out, self.in_shape, "y", self._op.back_device,
                     lambda a: self._op.back(_host(a, self.out_shape, "y")))


def _host(a, shape: tuple, name: str) -> np.ndarray:
    arr = np.asarray(a)
    if arr.shape != tuple(shape):
        raise ValueError(f"LineProjector: {name} has shape {arr.shape}, expected {tuple(shape)}")
    if arr.dtype not in (np.float32, np.float64):
        raise TypeError(f"LineProjector: {name} must be float32 or float64, got {arr.dtype}")
    return np.ascontiguousarray(arr, dtype=np.float64)
