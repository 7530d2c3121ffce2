"""fdk ([Hofmann2010], RabbitCT): the cone-beam back-projector on NumPy or GPU projection stacks.

Projections are (N, rows, cols) float32, already weighted and filtered as FDK needs (RabbitCT's
files carry such projections); matrices are (N, 3, 4) float64 mapping a world point (mm) to
homogeneous pixel coordinates (u·w, v·w, w). The volume comes back as (z, y, x) float32 with
f(i,j,k) = Σ_n bilinear(I_n, u_n, v_n) / w_n² at x = origin + i·voxel (RabbitCT's update rule).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from . import _checks, _core
from ._gpu import empty_like_kind, is_cuda_array, to_host


class Backprojector:
    def __init__(self, voxels: Sequence[int], voxel_mm: Sequence[float], origin_mm: Sequence[float] | None = None,
                 backend: str = "auto", interpolation: str = "exact"):
        voxels = [int(v) for v in voxels]
        voxel_mm = [float(v) for v in voxel_mm]
        if origin_mm is None:  # centred on the world origin
            origin_mm = [-(n - 1) / 2 * d for n, d in zip(voxels, voxel_mm)]
        self._op = _checks.call(_core.FdkBackprojector, backend, voxels, voxel_mm, [float(o) for o in origin_mm],
                                interpolation)

    def __repr__(self) -> str:
        return (f"tomoraster.fdk.Backprojector(backend={self._op.backend_name!r}, "
                f"volume_shape={self.volume_shape})")

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
        _check_stack(projections, to_host(matrices, "matrices"), count=False)  # the count: checked in C++
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


def fdk(projections, matrices, voxels, voxel_mm, origin_mm=None, backend: str = "auto",
        interpolation: str = "exact", window: str = "ram-lak", parker: bool = True, cosine: bool = True,
        filter_backend: str = "auto", intensity: bool = False, i0: float | None = None, chunk: int = 16,
        callback=None):
    """FDK on a user's stack, as the CLI's raw path ([fdk.raw]) does it: (intensities → ln(i0/I),)
    cosine and Parker weights and the ramp filter (window "ram-lak" | "shepp-logan" | "hann") with
    the orbit fitted to the matrices, then the back-projection with the matrices scaled to w = 1
    at the origin. Returns attenuation (mm⁻¹) as (z, y, x) float32.

    projections: (N, rows, cols) float32 line integrals (or intensities with intensity=True),
    NumPy, or CuPy/PyTorch with backend="cuda": then every step runs on the GPU where the stack
    lies (ln(i0/I) in float64, the weights and ramp filter with cuFFT into a scratch chunk, the
    back-projection accumulated chunk by chunk); the stack is not modified. filter_backend="cpu"
    (or any other than "auto"/"cuda") filters a host copy of each chunk instead.
    callback(done, total) after each chunk of `chunk` projections is filtered and back-projected;
    returning False stops and returns the partial volume."""
    if len(getattr(projections, "shape", ())) != 3:
        raise ValueError("projections: shape (N, rows, cols) expected")
    total = int(projections.shape[0])
    if chunk < 1:
        raise ValueError("chunk must be >= 1")
    if intensity and not (i0 is not None and i0 > 0):
        raise ValueError("i0 must be > 0 with intensity=True (the unattenuated intensity)")
    _check_stack(projections, to_host(matrices, "matrices"))
    on_gpu = is_cuda_array(projections)
    bp = Backprojector(voxels, voxel_mm, origin_mm, backend, interpolation)
    rows, cols = int(projections.shape[1]), int(projections.shape[2])
    pre = _core.FdkPreprocessor(to_host(matrices, "matrices"), rows, cols, window, parker, cosine, filter_backend,
                                bp._op.backend_name)
    mats = pre.matrices()
    if on_gpu and bp._op.backend_name != "cuda":  # before any work: the back-projection would refuse it
        raise TypeError(f"projections: a GPU array was given to the {bp._op.backend_name} backend, which takes "
                        f"NumPy arrays: use backend=\"cuda\" or pass a NumPy array")
    out = empty_like_kind(projections, bp.volume_shape, "projections") if on_gpu else None
    device_filter = on_gpu and filter_backend in ("auto", "cuda")
    scratch = empty_like_kind(projections, (min(chunk, total), rows, cols), "projections") if device_filter else None
    volume = None
    for n0 in range(0, total, chunk):
        part = np.ascontiguousarray(mats[n0:n0 + chunk])
        if device_filter:  # everything on the GPU, the filtered chunk in `scratch`
            raw = projections[n0:n0 + chunk]
            if intensity:
                raw = _line_integrals_device(raw, float(i0), n0)
            filtered = scratch[:raw.shape[0]]
            pre.apply_device(n0, raw, filtered)
            bp._op.backproject_device(filtered, part, out, n0 > 0)
        else:
            raw = np.ascontiguousarray(to_host(projections[n0:n0 + chunk], "projections"))
            if intensity:
                raw = _line_integrals(raw, float(i0), n0)
            filtered = pre.apply(n0, raw)
            if on_gpu:
                bp._op.backproject_device(_same_kind(filtered, projections), part, out, n0 > 0)
            elif volume is None:
                volume = bp.backproject(filtered, part)
            else:
                volume += bp.backproject(filtered, part)
        done = min(n0 + chunk, total)
        if callback is not None and callback(done, total) is False:
            break
    if on_gpu:
        return out
    return volume if volume is not None else np.zeros(bp.volume_shape, np.float32)


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


def _line_integrals(raw: np.ndarray, i0: float, n0: int) -> np.ndarray:
    """I → ln(i0/I) as the CLI's fdk.raw.intensity: I = 0 is taken as i0·1e-6, I < 0 is refused."""
    bad = ~np.isfinite(raw) | (raw < 0)
    if bad.any():
        n, j, i = np.argwhere(bad)[0]
        raise ValueError(f"projections: projection {n0 + n}, row {j}, column {i} is {raw[n, j, i]}: intensities must "
                         f"be finite and >= 0")
    return np.log(i0 / np.where(raw > 0, raw, i0 * 1e-6).astype(np.float64)).astype(np.float32)


def _line_integrals_device(raw, i0: float, n0: int):
    """_line_integrals on a CUDA chunk (CuPy or PyTorch), computed where it lies; a new float32 array."""
    if type(raw).__module__.split(".")[0] == "torch":
        import torch as xp
        wide = raw.to(xp.float64)
    else:
        import cupy as xp
        wide = raw.astype(xp.float64)
    bad = ~xp.isfinite(raw) | (raw < 0)
    if bool(bad.any()):
        n, j, i = (int(v) for v in xp.argwhere(bad)[0])
        raise ValueError(f"projections: projection {n0 + n}, row {j}, column {i} is {float(raw[n, j, i])}: "
                         f"intensities must be finite and >= 0")
    li = xp.log(i0 / xp.where(wide > 0, wide, xp.full_like(wide, i0 * 1e-6)))
    return li.to(xp.float32) if xp.__name__ == "torch" else li.astype(xp.float32)


def _same_kind(host: np.ndarray, like):
    """`host` copied to the device and framework of the GPU array `like`."""
    if type(like).__module__.split(".")[0] == "torch":
        import torch
        return torch.as_tensor(host, device=like.device)
    import cupy
    with cupy.cuda.Device(like.device.id):
        return cupy.asarray(host)
