"""glpet ([Toth2010]): PET between detector-module planes — the projector on NumPy arrays.

Images are (z, y, x) float32 arrays on the scene's grid; LOR vectors are the atlases of all
module pairs concatenated (docs/glpet.md §2).
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from . import _checks, _core
from ._gpu import array_module, empty_like_kind, is_cuda_array, to_host
from ._scene import problem_scene


class Projector:
    """The system matrix A of a glpet scene on one backend (cpu, gl, gl-compute, cuda, auto).

    ``forward(x)`` = A x, ``back(y)`` = Aᵀ y (its exact adjoint up to float rounding).
    With backend="cuda", x and y may be CUDA arrays (CuPy, PyTorch, anything with DLPack): they
    are used on the GPU and the result is the same kind of array (or ``out=``, written in place).
    Geometry from a scene, ``set=`` overrides, or keyword arguments named as the [glpet] keys
    (``grid={"dims": [16, 16, 16]}``...). LOR vectors y may also be given in the CLI's 5-D
    ``counts.npy`` layout (pairs, N_a, N_t, N_a, N_t) [pair, p, q, r, s].
    """

    def __init__(self, scene: str | Mapping[str, Any] | None = None, backend: str = "auto",
                 set: Mapping[str, Any] | None = None, **glpet_keys):
        scene = "default.toml" if scene is None else scene  # the embedded default scene is glpet's
        self._scene = problem_scene("glpet", scene, set, glpet_keys)
        self._op = _checks.call(_core.GlpetProjector, *self._scene, backend)

    def __repr__(self) -> str:
        return (f"tomoraster.glpet.Projector(backend={self._op.backend_name!r}, image_shape={self.image_shape}, "
                f"lor_count={self.lor_count})")

    def lors(self, y):
        """y as the flat LOR vector (lor_count,): a flat vector as it is, the CLI's 5-D counts
        (pairs, N_a, N_t, N_a, N_t) [pair, p, q, r, s] reordered into the atlases' order; any
        other shape is refused (a 5-D array raveled in C order is not the LOR order)."""
        shape = tuple(getattr(y, "shape", ()))
        five = tuple(self._op.pair_shape)
        if len(five) == 3:
            five = (five[0], five[1], five[2], five[1], five[2])
        if len(shape) == 5 and five and shape == five:
            # atlas texel (u, v) = (p·N_a + r, q·N_t + s), u fastest: axes (pair, q, s, p, r)
            return y.transpose(0, 2, 4, 1, 3).reshape(-1)
        if len(shape) == 1:
            return y
        layouts = f"({self.lor_count},)" + (f" or the CLI's counts.npy layout {five} [pair, p, q, r, s]" if five else "")
        raise ValueError(f"y: shape {shape} is not a LOR vector: expected {layouts}")

    @property
    def image_shape(self) -> tuple:
        return tuple(self._op.image_shape)

    @property
    def lor_count(self) -> int:
        return self._op.lor_count

    @property
    def backend(self) -> str:
        return self._op.describe()

    def forward(self, x, out=None):
        if is_cuda_array(x) or is_cuda_array(out):
            out = empty_like_kind(x, (self.lor_count,), "x") if out is None else out
            self._op.forward_device(x, out)
            return out
        return _into(self._op.forward(x), out)

    def back(self, y, out=None):
        y = self.lors(y)
        if is_cuda_array(y) or is_cuda_array(out):
            out = empty_like_kind(y, self.image_shape, "y") if out is None else out
            self._op.back_device(y, out)
            return out
        return _into(self._op.back(y), out)

    def sensitivity(self) -> np.ndarray:
        return self._op.sensitivity()

    def lor_endpoints(self):
        """(ends, origin, voxel): the LORs as lines for another projector. ends (lor_count, 2, 3)
        float64 in mm as (x, y, z), in the LOR vectors' order: each LOR from the centre of its
        detector on the pair's first module to the centre of its detector on the second, on the
        module planes; origin the centre of voxel (0, 0, 0) and voxel its size, mm, (x, y, z).
        The image (z, y, x) holds voxel (i, j, k) at [k, j, i]."""
        ends, origin, voxel = _checks.call(_core.glpet_lor_endpoints, *self._scene)
        return ends, tuple(origin), tuple(voxel)


def _into(result: np.ndarray, out):
    """NumPy results into the caller's out= array (one copy), or as they are."""
    if out is None:
        return result
    if not isinstance(out, np.ndarray) or out.shape != result.shape or out.dtype != result.dtype:
        raise ValueError(f"out: a NumPy float32 array of shape {result.shape} is needed here")
    out[...] = result
    return out


def mlem(projector: Projector, y, iterations: int = 10, x0=None, callback=None):
    """ML-EM ([Toth2010] eq. (3)) around the projector: x ← x · Aᵀ(y/Ax) / Aᵀ1.

    y: a NumPy array, or a CuPy array with backend="cuda" (then every vector stays on the GPU
    and x comes back as a CuPy array). callback(iteration, x) after each iteration; return
    False from it to stop. With tqdm installed and no callback, a progress bar is shown.
    The field of view is the CLI's: voxels below glpet.sensitivity_threshold × the largest
    sensitivity, or outside the scanner's cylinder (glpet.fov_mask), stay 0; counts that sum to
    nothing are a ValueError.
    """
    if iterations is not None:
        _checks.check_keys("glpet", {"glpet.iterations": iterations})
    xp = array_module(y, "y")
    y = xp.ascontiguousarray(projector.lors(y), dtype=xp.float32)
    _checks.counts("y", y, "glpet.mlem")
    _core.check_counts_total(float(y.sum()), "glpet.mlem", "y")
    # The CLI's field of view: voxels below glpet.sensitivity_threshold × the largest sensitivity
    # and, with glpet.fov_mask, outside the scanner's cylinder get s = 0 and stay 0.
    if xp is np:
        s = projector._op.mlem_sensitivity()
    else:
        s = projector.back(xp.ones(projector.lor_count, dtype=xp.float32))
        s = s * xp.asarray(projector._op.field_of_view(to_host(s, "s")))
    x = xp.where(s > 0, 1.0, 0.0).astype(xp.float32) if x0 is None else xp.array(x0, dtype=xp.float32)
    x = xp.where(s > 0, x, 0).astype(xp.float32)
    b = xp.empty_like(x)
    steps = range(1, iterations + 1)
    if callback is None:
        steps = _checks.progress_iter(steps, "glpet ML-EM")
    for it in steps:
        yt = projector.forward(x)
        ratio = xp.where(yt > 0, y / xp.where(yt > 0, yt, 1), 0).astype(xp.float32)
        b = projector.back(ratio, out=b)
        x = xp.where(s > 0, x * b / xp.where(s > 0, s, 1), 0).astype(xp.float32)
        if callback is not None and callback(it, x) is False:
            break
    return x


def reconstruct(projector: Projector, y, iterations: int | None = None, *, algorithm: str | None = None,
                subsets: int | None = None, subset_order: str | None = None, subset_seed: int | None = None,
                prior: Mapping[str, float] | None = None, relaxation: float | None = None,
                relaxation_decay: float | None = None, preconditioner: str | None = None,
                attenuation_map=None, normalisation=None, randoms=None,
                scatter=None, initial_image=None, save_iterations=None, callback=None):
    """The PET reconstruction layer (docs/pet.md) on the projector's backend, as ``tomoraster run``
    reconstructs the same scene: ML-EM, OSEM, MAP-RDP (BSREM) or OSL-RDP with the correction terms.

    The keywords are the [glpet] scene keys (``algorithm="osem", subsets=8``,
    ``prior={"beta": 0.03, "gamma": 2}``, ``randoms={"fraction": 0.2}``...); None keeps the
    projector's scene value or the key's default, and they are checked by the CLI's reader
    (ValueError in its words). ``normalisation`` and a term's ``file`` may be NumPy arrays (one
    value per LOR), a number for ``randoms``/``scatter`` is the fraction, ``initial_image`` a path
    or a (z, y, x) array; ``attenuation_map`` (a μ-map file, cm⁻¹) is added to the projector's σ_t
    for this reconstruction. y: the LOR vector or the CLI's 5-D counts.npy.
    Returns the image (z, y, x) float32; with ``save_iterations`` also {iteration: image}.
    callback(iteration, x) after each iteration; return False to stop.
    """
    from . import _pet
    y = np.ascontiguousarray(projector.lors(y), dtype=np.float32)
    _checks.counts("y", y, "glpet.reconstruct")
    _core.check_counts_total(float(y.sum()), "glpet.reconstruct", "y")
    keys = dict(algorithm=algorithm, subsets=subsets, subset_order=subset_order, subset_seed=subset_seed, prior=prior,
                relaxation=relaxation, relaxation_decay=relaxation_decay, preconditioner=preconditioner,
                attenuation_map=attenuation_map,
                normalisation=normalisation, randoms=randoms, scatter=scatter, initial_image=initial_image,
                save_iterations=save_iterations)
    with _pet.Keys("glpet", "glpet.reconstruct", iterations, keys, projector.image_shape, np.float32) as k:
        if iterations is not None and callback is None:
            callback = _checks.progress_callback(None, int(iterations), "glpet reconstruct")
        x, saved = _checks.call(projector._op.reconstruct, k.sets, y, k.x0, callback)
    return (x, dict(saved)) if k.saving else x
