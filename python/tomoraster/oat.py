"""oat ([Wang2013]): 3D optoacoustic tomography on NumPy arrays.

Images are (z, y, x) float64 arrays on the scene's grid; data are (Q, K) float64 arrays, one
row of K time samples per transducer (the layout of the CLI's data.npy). With backend="cuda",
Model.forward/adjoint, Fbp.reconstruct/fbp and pls also take CUDA arrays (CuPy, PyTorch; float32)
and keep them on the GPU.
"""
from __future__ import annotations

import math
import warnings
from typing import Any, Mapping

import numpy as np

from . import _checks, _core
from ._gpu import apply, empty_like_kind, is_cuda_array
from ._scene import problem_scene


class Model:
    """The interpolation model H = H_eir·D·H_srt on one backend (cpu, gl-compute, cuda, auto):
    ``forward(alpha)`` = Hα, ``adjoint(u)`` = Hᵀu (its exact transpose). Geometry from a scene,
    ``set=`` overrides, or keyword arguments named as the [oat] keys
    (``grid=[16, 16, 16], voxel_mm=1.0, rings=8, views=16, radius_mm=30``...); for read data
    (oat.source = "npy", ...) the transducers and time axis come from the file, as in a run."""

    def __init__(self, scene: str | Mapping[str, Any] | None = None, backend: str = "auto",
                 set: Mapping[str, Any] | None = None, interpolation: str = "exact", **oat_keys):
        self._op = _checks.call(_core.OatModel, *problem_scene("oat", scene, set, oat_keys), backend, interpolation)

    def __repr__(self) -> str:
        return (f"tomoraster.oat.Model(backend={self._op.describe()!r}, image_shape={self.image_shape}, "
                f"data_shape={self.data_shape})")

    @property
    def image_shape(self) -> tuple:
        return tuple(self._op.image_shape)

    @property
    def data_shape(self) -> tuple:
        return tuple(self._op.data_shape)

    @property
    def backend(self) -> str:
        return self._op.describe()

    def forward(self, alpha, out=None):
        """u = Hα. NumPy α (float64): a new NumPy array. CUDA α (CuPy, PyTorch; float32,
        backend="cuda"): computed on the GPU where it lies, into a new array of the same kind or
        into ``out=`` (float32 (Q, K))."""
        return apply(alpha, out, self.data_shape, "alpha", self._op.forward_device, self._op.forward)

    def adjoint(self, u, out=None):
        """α = Hᵀu; CUDA u (float32, backend="cuda") as forward, ``out=`` float32 (z, y, x)."""
        return apply(u, out, self.image_shape, "u", self._op.adjoint_device, self._op.adjoint)


class Fbp:
    """The fused filtered back-projection of the scene's geometry on one backend."""

    def __init__(self, scene: str | Mapping[str, Any] | None = None, backend: str = "auto",
                 set: Mapping[str, Any] | None = None, interpolation: str = "exact", **oat_keys):
        self._op = _checks.call(_core.OatFbp, *problem_scene("oat", scene, set, oat_keys), backend, interpolation)

    def __repr__(self) -> str:
        return f"tomoraster.oat.Fbp(backend={self._op.describe()!r}, image_shape={self.image_shape})"

    @property
    def backend(self) -> str:
        return self._op.describe()

    @property
    def image_shape(self) -> tuple:
        return tuple(self._op.image_shape)

    def reconstruct(self, u, deconvolve: bool = True, cutoff_mhz: float | None = None, out=None):
        """The image from data u; deconvolve=True first removes the EIR as a run does
        (cutoff_mhz None: the scene's oat.deconvolution_cutoff_mhz). NumPy u (float64): a new NumPy
        image. CUDA u (CuPy, PyTorch; float32 (Q, K), backend="cuda"): the FBP runs on the GPU where
        u lies, into a new array of the same kind or into ``out=`` (float32 (z, y, x)); the EIR
        deconvolution too (a direct convolution with the host deconvolution's own kernel)."""
        cutoff = -1.0 if cutoff_mhz is None else float(cutoff_mhz)
        return apply(u, out, self.image_shape, "u",
                     lambda x, o: self._op.reconstruct_device(x, o, deconvolve, cutoff),
                     lambda x: self._op.reconstruct(x, deconvolve, cutoff))


def acquire(scene: str | Mapping[str, Any] | None = None, set: Mapping[str, Any] | None = None, **oat_keys):
    """The scene's data as a run gets them: (u (Q, K), phantom (z, y, x) or None, positions (Q, 3) mm)."""
    return _core.oat_acquire(*problem_scene("oat", scene, set, oat_keys))


def fbp(u, scene=None, backend: str = "auto", set=None, deconvolve: bool = True, out=None, **oat_keys):
    """One call: Fbp on this scene, applied to u (NumPy, or CUDA with backend="cuda": see
    Fbp.reconstruct)."""
    return Fbp(scene, backend, set, **oat_keys).reconstruct(u, deconvolve, out=out)


def pls(model: Model, u, iterations: int | None = None, mu: float | None = None, callback=None,
        regulariser: str | None = None, nonnegative: bool | None = None):
    """Penalised least squares ([Wang2013] "PLS") from α = 0, as a run does (docs/oat.md "PLS"):
    argmin ‖u − Hα‖² + μλ·P(α), P the quadratic first-difference penalty (regulariser="quadratic",
    by conjugate gradients) or ᾱ·TV (regulariser="tv", by FISTA), over α ≥ 0 when nonnegative;
    μ is dimensionless (λ and ᾱ are scales taken from the data). iterations/mu/regulariser/
    nonnegative: None = the scene's oat.pls.* values.
    callback(iteration, objective, residual) after each iteration (its result is ignored).
    NumPy u (float64): the C++ loop (compute/oat/pls.cpp) in double. CUDA u (CuPy, PyTorch;
    float32 (Q, K); the model on backend="cuda"): the quadratic CG in float32 on the GPU, dot
    products summed in float64, α returned as u's kind of array (z, y, x)."""
    given = {k: v for k, v in (("oat.pls.iterations", iterations), ("oat.pls.mu", mu),
                               ("oat.pls.regulariser", regulariser), ("oat.pls.nonnegative", nonnegative))
             if v is not None}
    _checks.check_keys("oat", given)  # the CLI's ranges and words
    if is_cuda_array(u):
        reg_scene, nn_scene = model._op.pls_penalty
        if (regulariser or reg_scene) != "quadratic" or (nn_scene if nonnegative is None else nonnegative):
            raise ValueError("oat.pls: TV and the bound run on NumPy arrays (pass u as a NumPy array)")
        return _pls_device(model, u, iterations, mu, callback)
    _checks.finite("u", u, "oat.pls")
    if callback is None:  # still called every iteration: a pending Ctrl-C is raised there
        callback = _checks.progress_callback(None, model._op.pls_options[0] if iterations is None else int(iterations),
                                             "oat PLS")
    from ._stderr import through_python
    with through_python():
        return model._op.pls(u, -1 if iterations is None else int(iterations), -1.0 if mu is None else float(mu),
                             callback, regulariser or "", nonnegative)


class _DeviceOps:
    """The few array operations the device CG needs, for CuPy arrays and PyTorch tensors."""

    def __init__(self, like):
        self.torch = type(like).__module__.split(".")[0] == "torch"
        if self.torch:
            import torch
            self.f64 = torch.float64
        else:
            import cupy
            self.f64 = cupy.float64

    def dot(self, a, b) -> float:
        return float((a * b).sum(dtype=self.f64))

    def copy(self, a):
        return a.clone() if self.torch else a.copy()

    def zeros(self, like, shape):
        z = empty_like_kind(like, shape, "u")
        if self.torch:
            z.zero_()
        else:
            z.fill(0)
        return z


def _axis_pairs(axis: int):
    """Index tuples of the upper and lower voxel of every neighbouring pair along `axis`."""
    hi = [slice(None)] * 3
    lo = [slice(None)] * 3
    hi[axis], lo[axis] = slice(1, None), slice(None, -1)
    return tuple(hi), tuple(lo)


def _penalty(ops: _DeviceOps, a) -> float:
    """R(α) = Σ over neighbouring voxel pairs along x, y, z of (α_n − α_m)² (pls.cpp's)."""
    total = 0.0
    for axis in range(3):
        hi, lo = _axis_pairs(axis)
        d = a[hi] - a[lo]
        total += ops.dot(d, d)
    return total


def _add_penalty_normal(mu: float, a, out) -> None:
    """out += μ·LᵀLα: (LᵀLα)_n = Σ over the neighbours m of n of (α_n − α_m)."""
    if mu == 0:
        return
    for axis in range(3):
        hi, lo = _axis_pairs(axis)
        d = (a[hi] - a[lo]) * mu
        out[hi] += d
        out[lo] -= d


def _pls_device(model: Model, u, iterations, mu, callback):
    """compute/oat/pls.cpp run_pls on CUDA arrays: one forward and one adjoint of the device model
    per iteration (in place into reused buffers), Hα carried along for the objective. In Python
    because every step is an array operation the caller's library already runs on the GPU; only
    the dot products (scalars) come to the host."""
    it_scene, mu_scene = model._op.pls_options
    n_it = it_scene if iterations is None else int(iterations)
    mu = mu_scene if mu is None else float(mu)
    ops = _DeviceOps(u)
    r = model.adjoint(u)  # r = Hᵀu − Aα with α = 0 (checks u: device, dtype, shape, backend)
    alpha = ops.zeros(u, model.image_shape)
    h_alpha = ops.zeros(u, model.data_shape)
    hp = ops.zeros(u, model.data_shape)
    ap = ops.zeros(u, model.image_shape)
    rr = ops.dot(r, r)
    b_norm = math.sqrt(rr)
    p = ops.copy(r)
    it = 1
    mu_lam = None  # μ·λ, λ = ‖H·Hᵀu‖²/‖Hᵀu‖² from the first forward (μ is dimensionless, docs/oat.md)
    while it <= n_it and rr > 0:
        model.forward(p, out=hp)
        if mu_lam is None:
            mu_lam = mu * ops.dot(hp, hp) / rr
        model.adjoint(hp, out=ap)
        _add_penalty_normal(mu_lam, p, ap)
        pap = ops.dot(p, ap)
        if not pap > 0:
            warnings.warn(f"oat PLS: pᵀAp = {pap} at iteration {it}: stopped (the normal matrix is singular there)")
            break
        a = rr / pap
        alpha += a * p
        r -= a * ap
        h_alpha += a * hp
        rr_new = ops.dot(r, r)
        beta = rr_new / rr
        rr = rr_new
        p *= beta
        p += r
        if callback is not None:
            e = u - h_alpha
            objective = ops.dot(e, e) + (mu_lam * _penalty(ops, alpha) if mu != 0 else 0.0)
            callback(it, objective, math.sqrt(rr) / b_norm if b_norm > 0 else 0.0)
        it += 1
    return alpha
