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
from ._ct_geometry import (ConeGeometry, _check_stack, astra_cone_vec, circular_orbit, flat_dark,  # noqa: F401
                           from_astra_layout, read_projections, tigre)
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
        self.voxel_mm = tuple(voxel_mm)
        self.origin_mm = tuple(float(o) for o in origin_mm)

    def __repr__(self) -> str:
        return (f"tomoraster.fdk.Backprojector(backend={self._op.backend_name!r}, "
                f"volume_shape={self.volume_shape})")

    @property
    def backend(self) -> str:
        return self._op.describe()

    @property
    def volume_shape(self) -> tuple:
        return tuple(self._op.volume_shape)

    @property
    def out_shape(self) -> tuple:
        """The back-projection's output: the volume (z, y, x), as ``volume_shape``."""
        return self.volume_shape

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
        filter_backend: str = "auto", intensity: bool = False, i0: float | None = None, chunk: int = 32,
        callback=None):
    """FDK on a user's stack, as the CLI's raw path ([fdk.raw]) does it: (intensities → ln(i0/I),)
    cosine and Parker weights and the ramp filter (window "ram-lak" | "shepp-logan" | "hann") with
    the orbit fitted to the matrices, then the back-projection with the matrices scaled to w = 1
    at the origin. Returns attenuation (mm⁻¹) as (z, y, x) float32.

    projections: (N, rows, cols) float32 line integrals (or intensities with intensity=True),
    NumPy, or CuPy/PyTorch with backend="cuda". On the cuda backend (filter_backend "auto" or
    "cuda") the whole FDK runs on the GPU, `chunk` projections (at most 64) at a time: a CUDA stack
    is read where it lies (ln(i0/I) in float64 there), a NumPy stack is uploaded chunk by chunk
    through page-locked buffers while the previous chunk is filtered and back-projected; weights
    and ramp filter with cuFFT, the back-projection into one volume on the GPU, which comes back
    once. The cuFFT plans and GPU buffers are kept for the next call with the same geometry and
    arguments (clear_cache() frees them). The stack is not modified. filter_backend="cpu" (or any
    other than "auto"/"cuda") filters a host copy of each chunk instead; other backends filter on
    the host and back-project each chunk into one volume held by the backend.
    callback(done, total) after each chunk of `chunk` projections is handed to the back-projection;
    returning False stops and returns the partial volume."""
    if len(getattr(projections, "shape", ())) != 3:
        raise ValueError("projections: shape (N, rows, cols) expected")
    if chunk < 1:
        raise ValueError("chunk must be >= 1")
    if intensity and not (i0 is not None and i0 > 0):
        raise ValueError("i0 must be > 0 with intensity=True (the unattenuated intensity)")
    host_mats = to_host(matrices, "matrices")
    _check_stack(projections, host_mats)
    on_gpu = is_cuda_array(projections)
    rows, cols = int(projections.shape[1]), int(projections.shape[2])
    if filter_backend in ("auto", "cuda"):
        pipe = _pipeline(host_mats, rows, cols, voxels, voxel_mm, origin_mm, backend, interpolation, window, parker,
                         cosine, chunk)
        if pipe is not None:
            return _run_pipeline(pipe, projections, on_gpu, intensity, i0, callback)
    bp = Backprojector(voxels, voxel_mm, origin_mm, backend, interpolation)
    if on_gpu and bp._op.backend_name != "cuda":  # before any work: the back-projection would refuse it
        raise TypeError(f"projections: a GPU array was given to the {bp._op.backend_name} backend, which takes "
                        f"NumPy arrays: use backend=\"cuda\" or pass a NumPy array")
    # The filter on the host (filter_backend "cpu", or a backend other than cuda), each filtered
    # chunk back-projected into one volume: held by the backend for NumPy stacks, comes back once.
    pre = _core.FdkPreprocessor(host_mats, rows, cols, window, parker, cosine, filter_backend,
                                bp._op.backend_name)
    mats = pre.matrices()
    out = empty_like_kind(projections, bp.volume_shape, "projections") if on_gpu else None

    def add(n0, raw):
        filtered = pre.apply(n0, raw)
        part = np.ascontiguousarray(mats[n0:n0 + raw.shape[0]])
        if on_gpu:
            bp._op.backproject_device(_same_kind(filtered, projections), part, out, n0 > 0)
        else:
            bp._op.add(filtered, part)

    if not on_gpu:
        bp._op.begin()
    _chunks(projections, chunk, intensity, i0, callback, add, on_device=False)
    return out if on_gpu else bp._op.finish()


# The cuda pipeline of the last geometry fdk() ran (one: its GPU buffers are the stack's chunks and
# the volume), or None for a geometry whose backend is not cuda; keyed by every argument it holds.
_CACHE: dict = {}


def clear_cache() -> None:
    """Frees the cuFFT plans and GPU buffers fdk() keeps for its last geometry."""
    _CACHE.clear()


def _pipeline(mats, rows, cols, voxels, voxel_mm, origin_mm, backend, interpolation, window, parker, cosine, chunk):
    """The cuda FDK pipeline of these arguments (made, or the one kept from the last call), or None
    when `backend` does not resolve to cuda."""
    voxels = [int(v) for v in voxels]
    voxel_mm = [float(v) for v in voxel_mm]
    if origin_mm is None:  # centred on the world origin, as Backprojector does
        origin_mm = [-(n - 1) / 2 * d for n, d in zip(voxels, voxel_mm)]
    origin_mm = [float(o) for o in origin_mm]
    m = np.ascontiguousarray(np.asarray(mats, dtype=np.float64))
    key = (str(backend), str(interpolation), str(window), bool(parker), bool(cosine), rows, cols, tuple(voxels),
           tuple(voxel_mm), tuple(origin_mm), min(int(chunk), 64), _core.fdk_cuda_device(), m.shape,
           m.tobytes())
    if key in _CACHE:
        return _CACHE[key]
    _CACHE.clear()  # the GPU buffers of the last geometry go before new ones are made
    bp = Backprojector(voxels, voxel_mm, origin_mm, backend, interpolation)
    pipe = None
    if bp._op.backend_name == "cuda":
        del bp
        pipe = _checks.call(_core.FdkPipeline, m, rows, cols, window, parker, cosine, voxels, voxel_mm, origin_mm,
                            interpolation, min(int(chunk), 64))
    _CACHE[key] = pipe
    return pipe


def _run_pipeline(pipe, projections, on_gpu: bool, intensity: bool, i0, callback):
    """fdk() on the cuda pipeline: chunk by chunk, the volume on the GPU until the end."""
    out = empty_like_kind(projections, pipe.volume_shape, "projections") if on_gpu else None
    pipe.begin()
    _chunks(projections, pipe.chunk, intensity, i0, callback, pipe.add, on_device=on_gpu)
    if on_gpu:
        pipe.finish_device(out)
        return out
    return pipe.finish_host()


def _chunks(projections, step: int, intensity: bool, i0, callback, add, on_device: bool) -> None:
    """The chunk loop every fdk() path shares: add(n0, chunk) for chunks of `step` projections (line
    integrals; on_device: where the stack lies, else a contiguous host array), then callback(done,
    total); it returning False stops the loop."""
    total = int(projections.shape[0])
    for n0 in range(0, total, step):
        raw = projections[n0:n0 + step]
        if on_device:
            if intensity:
                raw = _line_integrals_device(raw, float(i0), n0)
        else:
            raw = np.ascontiguousarray(to_host(raw, "projections"))
            if intensity:
                raw = _line_integrals(raw, float(i0), n0)
        add(n0, raw)
        if callback is not None and callback(min(n0 + step, total), total) is False:
            break


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
    li = li.to(xp.float32) if xp.__name__ == "torch" else li.astype(xp.float32)
    # Written on the framework's current stream: done before the GPU pipeline's own streams read it.
    (xp.cuda.current_stream() if xp.__name__ == "torch" else xp.cuda.get_current_stream()).synchronize()
    return li


def _same_kind(host: np.ndarray, like):
    """`host` copied to the device and framework of the GPU array `like`."""
    if type(like).__module__.split(".")[0] == "torch":
        import torch
        return torch.as_tensor(host, device=like.device)
    import cupy
    with cupy.cuda.Device(like.device.id):
        return cupy.asarray(host)


# --- Cone-beam CT beyond FDK: the projector pair and the iterative algorithms (the CLI's
# --- fdk.algorithm = "sirt" | "cgls" | "os-sart" | "tv"); geometry and input: _ct_geometry.

class ConeBeam:
    """The cone-beam projector pair of the iterative algorithms on ``geometry``: ``forward``
    (volume (z, y, x) → line integrals (N, rows, cols)), ``back`` (its exact adjoint) and
    ``back_voxel`` (B, the voxel-driven back-projection SIRT, OS-SART and TV use, as ASTRA's BP3D),
    on a backend that has a forward projector (``"auto"``, ``"cpu"``, and the GPU ones where built).
    ``step_voxels``: the sample spacing along each ray, in voxels. ``interpolation`` (the scene's
    ``fdk.projector.interpolation``): ``"exact"`` samples with fp32 weights (the matched pair, within
    1e-5 of cpu); ``"hardware"`` with the GPU texture unit's filter (8-bit weights, about 1e-3
    relative; cuda: A and B, 2–8× faster; gl-compute and gl: B — their A is fixed, exact and
    hardware respectively). The cpu backend has no texture unit: "hardware" there is a ValueError."""

    def __init__(self, geometry: ConeGeometry, backend: str = "auto", step_voxels: float = 0.5,
                 interpolation: str = "exact"):
        self.geometry = geometry
        g = geometry
        self._op = _core.FdkConeBeam(backend, list(g.voxels), list(g.voxel_mm), list(g.origin_mm), g.rows, g.cols,
                                     g.matrices, float(step_voxels), str(interpolation))

    in_shape = property(lambda self: tuple(self._op.in_shape))
    out_shape = property(lambda self: tuple(self._op.out_shape))
    voxel_mm = property(lambda self: tuple(self._op.voxel_mm))
    origin_mm = property(lambda self: tuple(self._op.origin_mm))
    backend = property(lambda self: self._op.backend_name)
    interpolation = property(lambda self: self._op.interpolation)

    def __repr__(self) -> str:
        return f"tomoraster.fdk.ConeBeam(backend={self.backend!r}, in_shape={self.in_shape}, out_shape={self.out_shape})"

    def forward(self, volume, out=None):
        """A x: the line integrals (N, rows, cols) of the volume (z, y, x). NumPy in, a new NumPy
        array out; a CUDA array (CuPy, PyTorch; backend "cuda") is read where it lies and the
        result is a new array of its kind, or written into the CUDA array ``out``."""
        return self._apply("forward", volume, out, self.out_shape)

    def back(self, projections, out=None):
        """Aᵀ y, the exact adjoint: a volume (z, y, x); arrays as ``forward``'s."""
        return self._apply("back", projections, out, self.in_shape)

    def back_voxel(self, projections, out=None):
        """B y, the voxel-driven back-projection: a volume (z, y, x); arrays as ``forward``'s.
        Its weight is TIGRE's ``Atb(..., "matched")`` (the closed-form approximation of A's
        adjoint of Jia et al. 2010): per view, V·|det M|·|x − c|/t³ times a bilinear sample of the
        detector at the voxel's projection."""
        return self._apply("back_voxel", projections, out, self.in_shape)

    def _apply(self, which: str, a, out, shape):
        if is_cuda_array(a) or is_cuda_array(out):
            out = empty_like_kind(a, shape, "volume" if which == "forward" else "projections") if out is None else out
            self._op.apply_device(which, a, out)
            return out
        if out is not None:
            raise ValueError("out: only with CUDA arrays (NumPy results are returned new)")
        return getattr(self._op, which)(np.ascontiguousarray(a, dtype=np.float32))


def _iterate(algorithm: str, projections, geometry: ConeGeometry, iterations: int, backend: str, subsets: int = 10,
             tv_lambda: float = 2e-5, nonnegative: bool = True, step_voxels: float = 0.5, callback=None,
             backprojector: str = "exact", interpolation: str = "exact"):
    _checks.check_keys("fdk", {"fdk.algorithm": algorithm, "fdk.iterations": int(iterations),
                               "fdk.projector.interpolation": str(interpolation),
                               "fdk.subsets": int(subsets), "fdk.tv.lambda": float(tv_lambda),
                               "fdk.projector.step_voxels": float(step_voxels),
                               "fdk.cgls.backprojector": str(backprojector)})
    p = np.ascontiguousarray(np.asarray(projections, dtype=np.float32))
    if p.shape != geometry.out_shape:
        astra = (" (it is ASTRA's (rows, N, cols) layout: fdk.from_astra_layout turns it into ours)"
                 if p.ndim == 3 and p.shape[1] == geometry.views and p.shape[0] == geometry.rows else "")
        raise ValueError(f"projections: shape {p.shape}, but the geometry describes {geometry.out_shape} "
                         f"(N, rows, cols){astra}")
    if not np.isfinite(p).all():
        n, j, i = np.argwhere(~np.isfinite(p))[0]
        raise ValueError(f"projections: projection {n}, row {j}, column {i} is not finite")
    op = ConeBeam(geometry, backend, step_voxels, interpolation)
    return op._op.reconstruct(p, algorithm, int(iterations), int(subsets), float(tv_lambda), bool(nonnegative),
                              str(backprojector), callback)


def sirt(projections, geometry: ConeGeometry, iterations: int = 50, backend: str = "auto",
         nonnegative: bool = True, step_voxels: float = 0.5, callback=None, interpolation: str = "exact"):
    """SIRT on line integrals (N, rows, cols); the volume (z, y, x) float32 in mm⁻¹.
    callback(iteration, relative_residual) after each iteration. ``interpolation``: the projector
    pair's sampling, as ``ConeBeam``'s."""
    return _iterate("sirt", projections, geometry, iterations, backend, nonnegative=nonnegative,
                    step_voxels=step_voxels, callback=callback, interpolation=interpolation)


def os_sart(projections, geometry: ConeGeometry, iterations: int = 10, subsets: int = 10, backend: str = "auto",
            nonnegative: bool = True, step_voxels: float = 0.5, callback=None, interpolation: str = "exact"):
    """OS-SART: ``iterations`` passes over ``subsets`` interleaved subsets of the views."""
    return _iterate("os-sart", projections, geometry, iterations, backend, subsets=subsets, nonnegative=nonnegative,
                    step_voxels=step_voxels, callback=callback, interpolation=interpolation)


def cgls(projections, geometry: ConeGeometry, iterations: int = 10, backend: str = "auto", step_voxels: float = 0.5,
         callback=None, backprojector: str = "exact", interpolation: str = "exact"):
    """CGLS on min ‖Ax − b‖² (no non-negativity). ``backprojector``: ``"exact"`` (Aᵀ, the matched
    pair) or ``"voxel"`` (the voxel-driven B, as ASTRA's CGLS3D_CUDA and as TIGRE's CGLS with its
    "matched" Atb, which is B's weight: as fast as SIRT's step, as good where a voxel's shadow is
    about a detector pixel, worse on a finer detector)."""
    return _iterate("cgls", projections, geometry, iterations, backend, nonnegative=False, step_voxels=step_voxels,
                    callback=callback, backprojector=backprojector, interpolation=interpolation)


def tv(projections, geometry: ConeGeometry, iterations: int = 50, tv_lambda: float = 2e-5, backend: str = "auto",
       nonnegative: bool = True, step_voxels: float = 0.5, callback=None, interpolation: str = "exact"):
    """Total-variation regularised least squares (FISTA-TV in SIRT's metric), weight ``tv_lambda``
    in the volume's units (mm⁻¹), with non-negativity."""
    return _iterate("tv", projections, geometry, iterations, backend, tv_lambda=tv_lambda, nonnegative=nonnegative,
                    step_voxels=step_voxels, callback=callback, interpolation=interpolation)
