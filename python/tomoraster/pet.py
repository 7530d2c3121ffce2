"""PET primitives on arrays: ``LineProjector``, Joseph's LOR-driven line projector on arbitrary
line end points over a voxel grid, non-TOF (the operator of parallelproj's ``joseph3d``, and of
STIR's and CASToR's ray-driven projectors) or in TOF list mode (parallelproj's
``joseph3d_tof_lm``). docs/pet.md.
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

    TOF list mode (parallelproj's ``joseph3d_tof_lm_fwd/back`` and its argument names), with
    ``tof_bin_index`` given: one integer TOF bin per line in [0, ``num_tof_bins``); bins of
    ``tof_bin_width`` mm along the line, centred symmetrically about the line's midpoint (bin b at
    (b − (num_tof_bins − 1)/2)·tof_bin_width along p1 → p2), shifted by ``tof_center_offset`` mm
    (one number or one per line) along the dominant axis; ``tof_sigma`` (mm; one number or one per
    line) the Gaussian's σ, integrated over the bin and cut at ``num_sigmas``·σ, then renormalised
    over the planes it reaches. Each line's value is then its TOF bin's.
    """

    def __init__(self, endpoints, shape: Sequence[int], voxel_size: Sequence[float],
                 origin: Sequence[float], backend: str = "cpu", *, tof_bin_index=None,
                 num_tof_bins: int | None = None, tof_bin_width: float | None = None, tof_sigma=None,
                 tof_center_offset=0.0, num_sigmas: float = 3.0):
        ends = np.asarray(to_host(endpoints, "endpoints"), dtype=np.float64)
        if ends.ndim == 3 and ends.shape[1:] == (2, 3):
            ends = ends.reshape(-1, 6)
        elif not (ends.ndim == 2 and ends.shape[1] == 6):
            raise ValueError(f"LineProjector: endpoints must have shape (N, 2, 3) or (N, 6), got {ends.shape}")
        nz, ny, nx = _triple(shape, "shape", int)
        args = [np.ascontiguousarray(ends), [nx, ny, nz], _triple(voxel_size, "voxel_size", float),
                _triple(origin, "origin", float), str(backend)]
        self._tof = tof_bin_index is not None
        if self._tof:
            args += _tof_args(tof_bin_index, num_tof_bins, tof_bin_width, tof_sigma, tof_center_offset, num_sigmas)
        elif num_tof_bins is not None or tof_bin_width is not None or tof_sigma is not None:
            raise ValueError("LineProjector: num_tof_bins, tof_bin_width and tof_sigma need tof_bin_index "
                             "(one TOF bin per line)")
        self._op = _checks.call(_core.LineProjector, *args)

    def __repr__(self) -> str:
        return (f"tomoraster.pet.LineProjector(backend={self.backend!r}, lines={self.out_shape[0]}, "
                f"shape={self.in_shape}, tof={self._tof})")

    @property
    def tof(self) -> bool:
        """Whether each line is weighed by its TOF bin's kernel (TOF list mode)."""
        return self._tof

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


def _per_line(value, name: str) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(to_host(value, name), dtype=np.float64))
    if arr.ndim != 1:
        raise ValueError(f"LineProjector: {name} must be a number or one value per line, got shape {arr.shape}")
    return np.ascontiguousarray(arr)


def _tof_args(bins, num_bins, width, sigma, offset, num_sigmas) -> list:
    missing = [n for n, v in (("num_tof_bins", num_bins), ("tof_bin_width", width), ("tof_sigma", sigma)) if v is None]
    if missing:
        raise ValueError(f"LineProjector: TOF list mode (tof_bin_index given) needs {', '.join(missing)}")
    b = np.asarray(to_host(bins, "tof_bin_index"))
    if b.ndim != 1:
        raise ValueError(f"LineProjector: tof_bin_index must have shape (N,), got {b.shape}")
    if b.dtype.kind not in "iu":
        raise TypeError(f"LineProjector: tof_bin_index must be integers, got {b.dtype}")
    if b.size and (b.min() < np.iinfo(np.int32).min or b.max() > np.iinfo(np.int32).max):
        raise ValueError("LineProjector: tof_bin_index has values beyond 32-bit integers")
    if isinstance(num_bins, (bool, np.bool_)) or not isinstance(num_bins, (int, np.integer)):
        raise TypeError(f"LineProjector: num_tof_bins must be an integer, got {num_bins!r}")
    return [np.ascontiguousarray(b, dtype=np.int32), int(num_bins), float(width), _per_line(sigma, "tof_sigma"),
            _per_line(offset, "tof_center_offset"), float(num_sigmas)]


def _host(a, shape: tuple, name: str) -> np.ndarray:
    arr = np.asarray(a)
    if arr.shape != tuple(shape):
        raise ValueError(f"LineProjector: {name} has shape {arr.shape}, expected {tuple(shape)}")
    if arr.dtype not in (np.float32, np.float64):
        raise TypeError(f"LineProjector: {name} must be float32 or float64, got {arr.dtype}")
    return np.ascontiguousarray(arr, dtype=np.float64)
