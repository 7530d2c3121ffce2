"""Cone-beam geometry as CT users describe it (matrices, a circular orbit, ASTRA's cone_vec, TIGRE's
fields) and projection stacks as detectors hand them out (files, flat and dark fields); re-exported
by :mod:`tomoraster.fdk`, where the operators and algorithms that take them live."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from . import _core


def _check_stack(projections, matrices, count: bool = True) -> None:
    """One matrix per projection, every matrix finite (the CLI's matrix reader's words). A stack
    in ASTRA's layout (rows, N, cols) is refused by name rather than reconstructed as garbage."""
    m = np.asarray(matrices)
    shape = tuple(getattr(projections, "shape", ()))
    if count and m.ndim == 3 and len(shape) == 3 and m.shape[0] != shape[0]:
        astra = " (it is ASTRA's (rows, N, cols) layout: numpy.moveaxis(stack, 1, 0) turns it into ours)" \
            if shape[1] == m.shape[0] else ""
        raise ValueError(f"matrices: shape {m.shape} for projections of shape {shape}, which is (N, rows, cols) = "
                         f"{shape[0]} projections: one (3, 4) matrix per projection is needed{astra}")
    if m.dtype.kind == "f" and m.size and not np.isfinite(m).all():
        k = int(np.flatnonzero(~np.isfinite(m).ravel())[0])
        raise ValueError(f"matrices: matrix {k // 12}, row {k % 12 // 4}, column {k % 4} is not finite")


class ConeGeometry:
    """A cone-beam geometry: one (3, 4) matrix per view (world mm → detector pixel, pixel centres
    at integers), the detector (rows, cols) and the volume grid (voxels and voxel_mm as (x, y, z),
    centred on the world origin unless origin_mm, the centre of voxel (0, 0, 0), is given).

    ``in_shape`` is the volume's NumPy shape (z, y, x), ``out_shape`` the projections' (N, rows,
    cols). Build one with :func:`circular_orbit`, :func:`astra_cone_vec` or :func:`tigre`, or from
    your own matrices."""

    def __init__(self, matrices, rows: int, cols: int, voxels: Sequence[int], voxel_mm, origin_mm=None):
        m = np.ascontiguousarray(np.asarray(matrices, dtype=np.float64))
        if m.ndim != 3 or m.shape[1:] != (3, 4):
            raise ValueError(f"matrices: shape (N, 3, 4) expected, got {m.shape}")
        _check_stack(np.empty((m.shape[0], 0, 0)), m, count=False)
        self.matrices = m
        self.rows, self.cols = int(rows), int(cols)
        self.voxels = tuple(int(v) for v in voxels)
        vm = [float(voxel_mm)] * 3 if np.isscalar(voxel_mm) else [float(v) for v in voxel_mm]
        if len(self.voxels) != 3 or len(vm) != 3:
            raise ValueError("voxels and voxel_mm take three values (x, y, z)")
        self.voxel_mm = tuple(vm)
        if origin_mm is None:
            origin_mm = [-(n - 1) / 2 * d for n, d in zip(self.voxels, self.voxel_mm)]
        self.origin_mm = tuple(float(o) for o in origin_mm)

    @property
    def views(self) -> int:
        return int(self.matrices.shape[0])

    @property
    def in_shape(self) -> tuple:
        return (self.voxels[2], self.voxels[1], self.voxels[0])

    @property
    def out_shape(self) -> tuple:
        return (self.views, self.rows, self.cols)

    def __repr__(self) -> str:
        return (f"tomoraster.fdk.ConeGeometry(views={self.views}, detector={self.rows}x{self.cols}, "
                f"in_shape={self.in_shape}, voxel_mm={self.voxel_mm})")


def circular_orbit(rows: int, cols: int, pixel_mm: float, source_iso_mm: float, source_det_mm: float,
                   voxels: Sequence[int], voxel_mm, origin_mm=None, views: int = 360, arc_deg: float = 360.0,
                   start_deg: float = 0.0, angles_deg=None, short_scan: bool = False, offset_u_mm: float = 0.0,
                   offset_v_mm: float = 0.0, roll_deg: float = 0.0, pitch_deg: float = 0.0,
                   yaw_deg: float = 0.0) -> ConeGeometry:
    """The circular orbit about z of ``[fdk.geometry]``: source at source_iso_mm·(cos β, sin β, 0),
    a flat detector of rows × cols pixels of pixel_mm at source_det_mm from the source, columns
    along (−sin β, cos β, 0), rows along +z. Views: ``angles_deg`` (increasing), or ``views``
    evenly over ``arc_deg`` from ``start_deg`` (β_n = start + n·arc/(views−1)); ``short_scan``
    takes the arc 180° + 2·fan angle. offset_u_mm / offset_v_mm: where the central ray meets the
    detector, from its centre; roll/pitch/yaw: detector tilts about its centre (TIGRE's)."""
    m = _core.fdk_circular_orbit(int(views), float(arc_deg), float(start_deg),
                                 [] if angles_deg is None else [float(a) for a in angles_deg], int(rows), int(cols),
                                 float(pixel_mm), float(source_iso_mm), float(source_det_mm), float(offset_u_mm),
                                 float(offset_v_mm), float(roll_deg), float(pitch_deg), float(yaw_deg),
                                 bool(short_scan))
    return ConeGeometry(m, rows, cols, voxels, voxel_mm, origin_mm)


def astra_cone_vec(vectors, det_row_count: int, det_col_count: int, voxels: Sequence[int], voxel_mm=1.0,
                   origin_mm=None) -> ConeGeometry:
    """ASTRA's ``cone_vec`` geometry: ``vectors`` (N, 12) = (src, d, u, v) per view — source,
    detector centre, column step (pixel (0,0) → (0,1)), row step ((0,0) → (1,0)) — in the volume's
    units (millimetres here). ASTRA's projection data are (rows, N, cols): pass them through
    :func:`from_astra_layout`. ASTRA's volume (slices, rows, cols) is our (z, y, x)."""
    v = np.ascontiguousarray(np.asarray(vectors, dtype=np.float64))
    m = _core.fdk_astra_matrices(v, int(det_row_count), int(det_col_count))
    return ConeGeometry(m, det_row_count, det_col_count, voxels, voxel_mm, origin_mm)


def tigre(DSD, DSO, nDetector, dDetector, nVoxel, sVoxel, angles, offOrigin=(0, 0, 0), offDetector=(0, 0),
          rotDetector=(0, 0, 0), COR=0.0) -> ConeGeometry:
    """TIGRE's cone-beam geometry fields in its Python order: nDetector, dDetector, offDetector as
    (v, u); nVoxel, sVoxel, offOrigin as (z, y, x); rotDetector about (x, y, z) (rad); angles (rad)
    as (N,) or TIGRE's (N, 3) Euler angles. DSD, DSO, offsets, rotDetector and COR take one value
    or one per view. TIGRE's projections (N, v, u) and image (z, y, x) are ours as they are."""
    a = np.asarray(angles, dtype=np.float64)
    a = np.stack([a, np.zeros_like(a), np.zeros_like(a)], axis=1) if a.ndim == 1 else a
    rows = lambda x, k: np.atleast_2d(np.asarray(x, dtype=np.float64)).reshape(-1, k).tolist()  # noqa: E731
    m = _core.fdk_tigre_matrices(np.atleast_1d(np.asarray(DSD, np.float64)).tolist(),
                                 np.atleast_1d(np.asarray(DSO, np.float64)).tolist(),
                                 [int(n) for n in nDetector], [float(d) for d in dDetector], rows(offDetector, 2),
                                 rows(rotDetector, 3), rows(offOrigin, 3),
                                 np.atleast_1d(np.asarray(COR, np.float64)).tolist(), rows(a, 3))
    nz, ny, nx = (int(n) for n in nVoxel)
    sz, sy, sx = (float(s) for s in sVoxel)
    return ConeGeometry(m, int(nDetector[0]), int(nDetector[1]), (nx, ny, nz), (sx / nx, sy / ny, sz / nz))


def from_astra_layout(stack):
    """ASTRA's (rows, N, cols) projection data as our (N, rows, cols)."""
    return np.ascontiguousarray(np.moveaxis(np.asarray(stack), 1, 0))


def read_projections(path, layout: str = "projections"):
    """A stack from a file as the CLI's fdk.raw.projections reads it — .npy, NIfTI, a TIFF file of
    pages or a folder of TIFF files (name order) — as (N, rows, cols) float32; ``layout="astra"``:
    the file holds (rows, N, cols)."""
    import os
    return _core.fdk_read_projections(os.fspath(path), layout)


def flat_dark(projections, flat, dark=None):
    """Raw intensities → line integrals −ln((I − D)/(F − D)), the flat F and dark D images (rows,
    cols) or stacks (averaged); transmission below 1e-6 is taken as 1e-6, pixels with F ≤ D give 0."""
    f32 = lambda a: np.ascontiguousarray(np.asarray(a, dtype=np.float32))  # noqa: E731
    return _core.fdk_flat_dark(f32(projections), f32(flat), None if dark is None else f32(dark))
