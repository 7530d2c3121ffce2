"""oat (seed 001): 3D optoacoustic tomography on NumPy arrays.

Images are (z, y, x) float64 arrays on the scene's grid; data are (Q, K) float64 arrays, one
row of K time samples per transducer (the layout of the CLI's data.npy).
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from . import _core
from ._gpu import empty_like_kind, is_cuda_array
from ._scene import problem_scene


class Model:
    """The interpolation model H = H_eir·D·H_srt on one backend (cpu, gl-compute, cuda, auto):
    ``forward(alpha)`` = Hα, ``adjoint(u)`` = Hᵀu (its exact transpose). Geometry from a scene,
    ``set=`` overrides, or keyword arguments named as the [oat] keys
    (``grid=[16, 16, 16], voxel_mm=1.0, rings=8, views=16, radius_mm=30``...); for read data
    (oat.source = "npy", ...) the transducers and time axis come from the file, as in a run."""

    def __init__(self, scene: str | Mapping[str, Any] | None = None, backend: str = "auto",
                 set: Mapping[str, Any] | None = None, interpolation: str = "exact", **oat_keys):
        self._op = _core.OatModel(*problem_scene("oat", scene, set, oat_keys), backend, interpolation)

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
        if is_cuda_array(alpha) or is_cuda_array(out):
            out = empty_like_kind(alpha, self.data_shape, "alpha") if out is None else out
            self._op.forward_device(alpha, out)
            return out
        if out is not None:
            raise ValueError("out: only with CUDA arrays (NumPy results are returned new)")
        return self._op.forward(alpha)

    def adjoint(self, u, out=None):
        """α = Hᵀu; CUDA u (float32, backend="cuda") as forward, ``out=`` float32 (z, y, x)."""
        if is_cuda_array(u) or is_cuda_array(out):
            out = empty_like_kind(u, self.image_shape, "u") if out is None else out
            self._op.adjoint_device(u, out)
            return out
        if out is not None:
            raise ValueError("out: only with CUDA arrays (NumPy results are returned new)")
        return self._op.adjoint(u)


class Fbp:
    """The fused filtered back-projection of the scene's geometry on one backend."""

    def __init__(self, scene: str | Mapping[str, Any] | None = None, backend: str = "auto",
                 set: Mapping[str, Any] | None = None, interpolation: str = "exact", **oat_keys):
        self._op = _core.OatFbp(*problem_scene("oat", scene, set, oat_keys), backend, interpolation)

    @property
    def backend(self) -> str:
        return self._op.describe()

    def reconstruct(self, u: np.ndarray, deconvolve: bool = True, cutoff_mhz: float | None = None) -> np.ndarray:
        """The image from data u; deconvolve=True first removes the EIR as a run does
        (cutoff_mhz None: the scene's oat.deconvolution_cutoff_mhz)."""
        return self._op.reconstruct(u, deconvolve, -1.0 if cutoff_mhz is None else float(cutoff_mhz))


def acquire(scene: str | Mapping[str, Any] | None = None, set: Mapping[str, Any] | None = None, **oat_keys):
    """The scene's data as a run gets them: (u (Q, K), phantom (z, y, x) or None, positions (Q, 3) mm)."""
    return _core.oat_acquire(*problem_scene("oat", scene, set, oat_keys))


def fbp(u: np.ndarray, scene=None, backend: str = "auto", set=None, deconvolve: bool = True, **oat_keys) -> np.ndarray:
    """One call: Fbp on this scene, applied to u."""
    return Fbp(scene, backend, set, **oat_keys).reconstruct(u, deconvolve)


def pls(model: Model, u: np.ndarray, iterations: int | None = None, mu: float | None = None, callback=None):
    """Penalised least squares (seed 001 "PLS") by conjugate gradients from α = 0, as a run does:
    argmin ‖u − Hα‖² + μR(α). iterations/mu: None = the scene's oat.pls.* values.
    callback(iteration, objective, residual) after each iteration (its result is ignored)."""
    return model._op.pls(u, -1 if iterations is None else int(iterations), -1.0 if mu is None else float(mu), callback)
