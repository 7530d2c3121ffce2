"""tomoraster: tomographic reconstruction on the graphics pipeline (OpenGL, CUDA, CPU).

The operators of each problem work on NumPy arrays (``tomoraster.glpet``, ``fdk``, ``strip``,
``oat``, ``safir``, ``musr``; glpet's and fdk's cuda backends also on CuPy/PyTorch arrays in place),
scenes run as the CLI runs them (``tomoraster.run``), and ``tomoraster.info()`` says what this
machine offers. See docs/python.md.
"""
from __future__ import annotations

import atexit as _atexit
import json as _json
import os as _os
from typing import Any, Mapping

from . import _checks, _core, _stderr
from ._scene import scene_arguments as _scene_arguments

__version__ = _core.version()
UnavailableError = _core.UnavailableError

_atexit.register(_core.shutdown)  # GPU contexts go before the drivers unload


def info() -> dict:
    """What `tomoraster info` prints, as data: version, OpenGL/CUDA sections, problems and their backends."""
    return _json.loads(_core.info_json())


def quiet(on: bool = True) -> None:
    """Warnings only, no progress bars (the CLI's -q), neither C++'s nor the Python side's tqdm bars."""
    _core.set_quiet(on)
    _checks.quiet = bool(on)


def _interruptible(fn, *args):
    """fn(*args) in a worker thread (the C++ call releases the GIL), so that Ctrl-C in the main
    thread is seen at once: it asks the C++ work to stop as a signal would (its loops poll for
    one), waits for it to unwind, and raises KeyboardInterrupt."""
    import threading
    outcome = {}

    def work():
        try:
            outcome["value"] = fn(*args)
        except BaseException as e:  # handed to the caller's thread
            outcome["error"] = e

    worker = threading.Thread(target=work, name="tomoraster-run", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.1)
    except KeyboardInterrupt:
        _core.request_interrupt(2)
        worker.join()
        _core.clear_interrupt()
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def run(scene: str | Mapping[str, Any] | None = None, backend: str = "", out: str | None = None,
        set: Mapping[str, Any] | None = None, force: bool = False, load: bool = True) -> dict:
    """Runs a scene as ``tomoraster run`` does.

    scene: a path, an embedded scene's name, a dict shaped like the TOML file, or None (the
    embedded default scene). Returns the report as a dict; with load=True its "volumes" entry
    maps each NIfTI output's name to a NumPy array (z, y, x).
    """
    text, is_text, sets = _scene_arguments(scene, set)
    out = _checks.path("out", out) if out is not None else _os.path.join("out", "python")
    with _stderr.through_python():
        report_text, folder = _checks.call(_interruptible, _core.run, text, is_text, backend, out, sets, bool(force))
    report = _json.loads(report_text)
    report["output_dir"] = folder
    if load:
        report["volumes"] = {
            name[:-4]: read_nifti(_os.path.join(folder, name))[0]
            for name in report.get("outputs", []) if name.endswith(".nii")
        }
    return report


def set_cuda_device(device: int) -> None:
    """The CUDA device of operators created from now on (the CLI's --cuda-device); their GPU
    arrays must live there."""
    _core.set_cuda_device(int(device))


def read_nifti(path: str, frames: bool = False):
    """A NIfTI volume as (array (z, y, x) float32, voxel_mm (x, y, z), origin_mm (x, y, z)). A 4-D
    file (safir's frames with safir.frame_s) gives an array (t, z, y, x); frames=True adds the
    frame duration in seconds as a fourth item (0 for a 3-D file)."""
    array, voxel_mm, origin_mm, frame_s = _core.read_nifti(_checks.path("path", path))
    return (array, voxel_mm, origin_mm, frame_s) if frames else (array, voxel_mm, origin_mm)


def read_interfile(path: str, frames: bool = False):
    """An Interfile image (.hv header and its data file, as STIR and CASToR write them) as
    read_nifti gives a NIfTI: (array (z, y, x) float32, voxel_mm, origin_mm[, frame_s])."""
    array, voxel_mm, origin_mm, frame_s = _core.read_interfile(_checks.path("path", path))
    return (array, voxel_mm, origin_mm, frame_s) if frames else (array, voxel_mm, origin_mm)


def write_interfile(path: str, array, voxel_mm, origin_mm=None, quantity: str = "", unit: str = "",
                    frame_s: float = 0.0) -> None:
    """Writes `array` (z, y, x) or (t, z, y, x) as Interfile: `path` (.hv) and its .v data file
    beside it, float32 little-endian. origin_mm: the centre of voxel 0 (x, y, z) in mm; None
    centres the grid on the scanner axis."""
    _core.write_interfile(str(path), array, list(voxel_mm), [] if origin_mm is None else list(origin_mm),
                          quantity, unit, float(frame_s))


from . import fdk, glpet, musr, oat, pet, safir, strip  # noqa: E402  (they use the names above)

__all__ = ["info", "run", "read_nifti", "read_interfile", "write_interfile", "quiet", "set_cuda_device", "glpet", "fdk", "strip", "oat", "safir", "musr", "UnavailableError",
           "__version__"]
