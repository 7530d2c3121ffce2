"""strip ([Bialas2015]): J-PET two-strip TOF list-mode ML-EM on NumPy event arrays.

Events are (N, 3) float32 arrays of (z̃u, z̃d, Δl̃) in mm (the columns of the .lm files);
images are (n_y, n_z) float64 arrays on the scene's pixel grid (y across the strips, z along).
With backend="cuda", events and images may be CUDA arrays (CuPy, PyTorch; float32 images):
they are used on the GPU in place and results come back as the same kind of array.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from . import _checks, _core
from ._gpu import empty_like_kind, is_cuda_array
from ._scene import problem_scene


class Projector:
    """P(ẽ_j|i) of [Bialas2015] eq. (7) for a strip scene on one backend (cpu, gl-compute, cuda, auto).

    Geometry from a scene (path, embedded name or dict), ``set=`` overrides, or keyword arguments
    named as the [strip] keys: ``Projector(R=130, L=300, pixel_size=4, sigma_z=10, sigma_dl=40)``.
    ``forward(x, events)`` = Σ_i P(ẽ_j|i) x_i per event and ``back(w, events)`` its transpose are
    evaluated by the projector's backend (in double on the cpu, in float on gl-compute and cuda;
    ``iterate`` is the fused ML-EM step). With backend="cuda" and CUDA arrays (float32 images
    (n_y, n_z), events (N, 3), w (N,)) the same cuda kernels write a new array of the caller's
    kind or ``out=``.
    """

    def __init__(self, scene: str | Mapping[str, Any] | None = None, backend: str = "auto",
                 set: Mapping[str, Any] | None = None, **strip_keys):
        self._op = _checks.call(_core.StripProjector, *problem_scene("strip", scene, set, strip_keys), backend)

    def __repr__(self) -> str:
        return (f"tomoraster.strip.Projector(backend={self._op.describe()!r}, image_shape={self.image_shape}, "
                f"pixel_mm={self.pixel_mm})")

    @property
    def image_shape(self) -> tuple:
        return tuple(self._op.image_shape)

    @property
    def pixel_mm(self) -> tuple:
        return tuple(self._op.pixel_mm)

    @property
    def backend(self) -> str:
        return self._op.describe()

    def forward(self, x, events, out=None):
        if is_cuda_array(x) or is_cuda_array(events) or is_cuda_array(out):
            out = empty_like_kind(_first_cuda(x, events), (len(events),), "x") if out is None else out
            self._op.forward_device(x, events, out)
            return out
        _no_host_out(out)
        return self._op.forward(x, events)

    def back(self, w, events, out=None):
        if is_cuda_array(w) or is_cuda_array(events) or is_cuda_array(out):
            out = empty_like_kind(_first_cuda(w, events), self.image_shape, "w") if out is None else out
            self._op.back_device(w, events, out)
            return out
        _no_host_out(out)
        return self._op.back(w, events)

    def sensitivity(self) -> np.ndarray:
        """s(y, z) of eq. (4) at the pixel centres."""
        return self._op.sensitivity()

    def set_events(self, events) -> None:
        """Copies the events into the backend (onto the GPU for cuda) for iterate() and mlem().
        A CUDA array (backend="cuda") is copied device to device and never passes the host."""
        if is_cuda_array(events):
            self._op.set_events_device(events)
        else:
            self._op.set_events(events)

    def iterate(self, rho_prime, out=None):
        """One ML-EM step of eq. (5) on the backend: ρ' ← ρ' · Σ_j P(ẽ_j|·) / Σ_i P(ẽ_j|i) ρ'_i.
        A CUDA ρ' (float32, backend="cuda") gives a new array of its kind, or ``out=`` (which
        may be rho_prime itself: the step reads ρ' from a texture copied first)."""
        if is_cuda_array(rho_prime) or is_cuda_array(out):
            out = empty_like_kind(rho_prime, self.image_shape, "rho_prime") if out is None else out
            self._op.iterate_device(rho_prime, out)
            return out
        _no_host_out(out)
        return self._op.iterate(rho_prime)


def read_events(path: str) -> np.ndarray:
    """A .lm (binary) or text event file as an (N, 3) float32 array."""
    import os
    path = _checks.path("path", path)
    if not os.path.isfile(path):
        what = "a folder" if os.path.isdir(path) else "not a regular file" if os.path.exists(path) else "missing"
        raise ValueError(f"{path}: events file is {what} (a .lm or text event file is needed)")
    return _core.strip_read_events(path)


def mlem(projector: Projector, events, iterations: int | None = None, callback=None,
         return_rho_prime: bool = False):
    """List-mode ML-EM (eqs. 5–6) on the projector's backend from ρ' = 1; returns ρ = ρ'/s in the
    field of view (as the CLI's rho.nii), and ρ' too with return_rho_prime=True.

    iterations: None = the scene's strip.iterations. callback(iteration, rho) after each
    iteration; return False from it to stop. Without a callback and with tqdm installed, a
    progress bar is shown.

    events as a CUDA array (CuPy, PyTorch; backend="cuda"): events, ρ' and ρ stay on the GPU for
    all iterations and come back as float32 arrays of the events' kind; the ρ given to the
    callback is one array rewritten each iteration (copy it to keep it).
    """
    if iterations is not None:
        _checks.check_keys("strip", {"strip.iterations": iterations})
    projector.set_events(events)
    n = projector._op.iterations if iterations is None else int(iterations)
    callback = _progress(callback, n, "strip ML-EM")
    if is_cuda_array(events):
        rho = empty_like_kind(events, projector.image_shape, "events")
        rho_prime = empty_like_kind(events, projector.image_shape, "events")
        step = None if callback is None else (lambda it: callback(it, rho))
        projector._op.mlem_device(n, step, rho, rho_prime)
    else:
        rho, rho_prime = projector._op.mlem(n, callback)
    return (rho, rho_prime) if return_rho_prime else rho


def _first_cuda(*arrays):
    """The first CUDA array of the arguments: results are allocated as its kind."""
    return next((a for a in arrays if is_cuda_array(a)), arrays[0])


def _no_host_out(out):
    if out is not None:
        raise ValueError("out: only with CUDA arrays (NumPy results are returned new)")


def _progress(callback, total, desc):
    """The user's callback, a tqdm bar, or a no-op (see _checks.progress_callback)."""
    return _checks.progress_callback(callback, total, desc)


def reconstruct(projector: Projector, events, iterations: int | None = None, *, algorithm: str | None = None,
                subsets: int | None = None, subset_order: str | None = None, subset_seed: int | None = None,
                prior: Mapping[str, float] | None = None, relaxation: float | None = None,
                relaxation_decay: float | None = None, preconditioner: str | None = None,
                attenuation_map=None, normalisation=None, randoms=None,
                scatter=None, initial_image=None, save_iterations=None, callback=None,
                return_rho_prime: bool = False):
    """The PET reconstruction layer (docs/pet.md) over ρ' on the projector's backend, as
    ``tomoraster run`` reconstructs the same events: ML-EM, OSEM, MAP-RDP (BSREM) or OSL-RDP with
    the correction terms. Returns ρ = ρ'/s in the field of view (the CLI's rho.nii), and ρ' too
    with return_rho_prime=True; with ``save_iterations`` also {iteration: ρ'} (the CLI's
    rho_prime_iter files).

    The keywords are the [strip] scene keys (``algorithm="osem", subsets=8``,
    ``prior={"beta": 0.08}``, ``randoms={"fraction": 0.2}``...); None keeps the projector's scene
    value or the key's default, and they are checked by the CLI's reader (ValueError in its
    words). ``normalisation`` may be a NumPy array (2N strip-segment efficiencies), a term's
    ``file`` one density per event, a number for ``randoms``/``scatter`` the fraction,
    ``initial_image`` a path or an (n_y, n_z) ρ' array, ``attenuation_map`` a μ-map file (cm⁻¹).
    callback(iteration, rho) after each iteration; return False to stop.
    """
    from . import _pet
    keys = dict(algorithm=algorithm, subsets=subsets, subset_order=subset_order, subset_seed=subset_seed, prior=prior,
                relaxation=relaxation, relaxation_decay=relaxation_decay, preconditioner=preconditioner,
                attenuation_map=attenuation_map,
                normalisation=normalisation, randoms=randoms, scatter=scatter, initial_image=initial_image,
                save_iterations=save_iterations)
    if is_cuda_array(events):
        raise TypeError("strip.reconstruct: events: a NumPy array is needed (strip.mlem takes CUDA events)")
    with _pet.Keys("strip", "strip.reconstruct", iterations, keys, projector.image_shape, np.float64) as k:
        n = projector._op.iterations if iterations is None else int(iterations)
        callback = _progress(callback, n, "strip reconstruct")
        rho, rho_prime, saved = _checks.call(projector._op.reconstruct, k.sets, events, k.x0, callback)
    out = (rho, rho_prime) if return_rho_prime else rho
    if k.saving:
        return (*out, dict(saved)) if return_rho_prime else (rho, dict(saved))
    return out
