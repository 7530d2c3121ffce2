"""safir ([Locans2017] §5): list-mode PET for a cylindrical scanner on NumPy arrays.

Events are (N, 2) uint32 arrays of crystal ids (ring·crystals + detector); images are
(z, y, x) float64 arrays on the scene's image box. With backend="cuda", events, images and
per-event values may be CUDA arrays (CuPy, PyTorch; float32 images and values): used on the GPU
in place, results as the same kind of array.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from . import _checks, _core
from ._gpu import apply, empty_like_kind, is_cuda_array
from ._scene import problem_scene
from .strip import _progress


class Projector:
    """The slice-wise system matrix of [Locans2017] eq. (12) over a list of events, on one backend
    (cpu, gl-compute, cuda, auto). Geometry from a scene, ``set=`` overrides, or keyword
    arguments named as the [safir] keys (``rings=8, crystals=64, image=[24, 24, 8]``...).

    ``set_events(events)`` first; then ``forward(x)`` = ȳ_l = Σ_j a_lj x_j + n per event,
    ``back(v)`` = Σ_l a_lj v_l (its adjoint when n = 0), ``sensitivity()`` = Σ_i a_ij over all
    crystal pairs.
    """

    def __init__(self, scene: str | Mapping[str, Any] | None = None, backend: str = "auto",
                 set: Mapping[str, Any] | None = None, **safir_keys):
        self._op = _checks.call(_core.SafirProjector, *problem_scene("safir", scene, set, safir_keys), backend)

    def __repr__(self) -> str:
        return (f"tomoraster.safir.Projector(backend={self._op.describe()!r}, image_shape={self.image_shape}, "
                f"events={getattr(self, '_events', 0)})")

    @property
    def image_shape(self) -> tuple:
        return tuple(self._op.image_shape)

    @property
    def backend(self) -> str:
        return self._op.describe()

    def set_events(self, events) -> None:
        """The events of forward/back/mlem. A CUDA (N, 2) uint32 array (backend="cuda") is checked
        and sorted on the GPU and never passes the host (unless a NumPy call needs it later)."""
        if is_cuda_array(events):
            self._op.set_events_device(events)
        else:
            self._op.set_events(events)
        self._events = len(events)

    def set_randoms_per_lor(self, n: float) -> None:
        """Mean randoms per LOR (n of eq. (9)); the CLI uses delayed / (C(C−1)/2)."""
        self._op.set_randoms_per_lor(float(n))

    def forward(self, x, out=None):
        """ȳ = A x + n per event. NumPy x (float64): a new NumPy array. CUDA x (CuPy, PyTorch;
        float32, backend="cuda"): on the GPU where it lies (the events stay as set, uploaded and
        sorted once), into a new array of the same kind or ``out=`` (float32 (N,))."""
        return apply(x, out, (getattr(self, "_events", 0),), "x", self._op.forward_device, self._op.forward)

    def back(self, v, out=None):
        """Aᵀ v; CUDA v (float32 (N,), backend="cuda") as forward, ``out=`` float32 (z, y, x)."""
        return apply(v, out, self.image_shape, "v", self._op.back_device, self._op.back)

    def sensitivity(self) -> np.ndarray:
        return self._op.sensitivity()


def events(scene: str | Mapping[str, Any] | None = None, set: Mapping[str, Any] | None = None, **safir_keys):
    """The scene's events as a run gets them (safir.events_file, or simulated with its seed):
    (events (N, 2) uint32, time_s (N,) float64, delayed coincidences)."""
    return _core.safir_events(*problem_scene("safir", scene, set, safir_keys))


def mlem(projector: Projector, events, iterations: int | None = None, halve_events: bool = False,
         randoms_per_lor: float = 0.0, callback=None):
    """List-mode ML-EM (eq. (10)) from f = 1 on the projector's backend; the sensitivity is
    computed once per projector. callback(iteration, image) after each iteration; return False
    to stop. iterations: None = the scene's safir.iterations.

    events as a CUDA array (CuPy, PyTorch; backend="cuda"): events and image stay on the GPU for
    all iterations (the cuda backend's own pass on the caller's memory; only the sensitivity,
    computed once, is uploaded) and the image comes back as a float32 array of the events' kind;
    the image given to the callback is that array, rewritten each iteration (copy it to keep it).
    """
    if iterations is not None:
        _checks.check_keys("safir", {"safir.iterations": iterations})
    r = float(randoms_per_lor)
    if not (r >= 0 and r < float("inf")):
        raise ValueError(f"safir.mlem: randoms_per_lor must be finite and >= 0, got {r:g}")
    projector.set_events(events)
    projector.set_randoms_per_lor(r)
    n = projector._op.iterations if iterations is None else int(iterations)
    callback = _progress(callback, n, "safir ML-EM")
    if is_cuda_array(events):
        image = empty_like_kind(events, projector.image_shape, "events")
        step = None if callback is None else (lambda it: callback(it, image))
        projector._op.mlem_device(n, halve_events, step, image)
        return image
    return projector._op.mlem(n, halve_events, callback)


def reconstruct(projector: Projector, events, iterations: int | None = None, *, delayed: int = 0,
                algorithm: str | None = None, subsets: int | None = None, subset_order: str | None = None,
                subset_seed: int | None = None, prior: Mapping[str, float] | None = None,
                relaxation: float | None = None, relaxation_decay: float | None = None, preconditioner: str | None = None,
                attenuation_map=None,
                normalisation=None, randoms=None, scatter=None, initial_image=None, save_iterations=None,
                callback=None):
    """The PET reconstruction layer (docs/pet.md) on the projector's backend, as ``tomoraster run``
    reconstructs the same events (one frame): ML-EM, OSEM, MAP-RDP (BSREM) or OSL-RDP with the
    correction terms.

    The keywords are the [safir] scene keys (``algorithm="osem", subsets=8``,
    ``prior={"beta": 0.02}``, ``randoms={"fraction": 0.2}``...); None keeps the projector's scene
    value or the key's default, and they are checked by the CLI's reader (ValueError in its
    words). ``normalisation`` may be a NumPy array (one efficiency per crystal), a term's ``file``
    one value per event (acquisition order), a number for ``randoms``/``scatter`` the fraction,
    ``initial_image`` a path or a (z, y, x) array, ``attenuation_map`` a μ-map file (cm⁻¹).
    delayed: the delayed coincidences (``events()``'s third value): without a randoms term they
    are the run's randoms estimate, spread over the LORs. Returns the image (z, y, x) float64;
    with ``save_iterations`` also {iteration: image}. callback(iteration, image) after each
    iteration; return False to stop. The projector keeps the events in their order afterwards.
    """
    from . import _pet
    if isinstance(delayed, bool) or not isinstance(delayed, (int, np.integer)) or delayed < 0:
        raise ValueError(f"safir.reconstruct: delayed must be an integer >= 0, got {delayed!r}")
    keys = dict(algorithm=algorithm, subsets=subsets, subset_order=subset_order, subset_seed=subset_seed, prior=prior,
                relaxation=relaxation, relaxation_decay=relaxation_decay, preconditioner=preconditioner,
                attenuation_map=attenuation_map,
                normalisation=normalisation, randoms=randoms, scatter=scatter, initial_image=initial_image,
                save_iterations=save_iterations)
    with _pet.Keys("safir", "safir.reconstruct", iterations, keys, projector.image_shape, np.float64) as k:
        n = projector._op.iterations if iterations is None else int(iterations)
        callback = _progress(callback, n, "safir reconstruct")
        image, saved = _checks.call(projector._op.reconstruct, k.sets, events, float(delayed), k.x0, callback)
    projector._events = len(events)
    return (image, dict(saved)) if k.saving else image
