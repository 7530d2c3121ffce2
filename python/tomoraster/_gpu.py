"""GPU arrays from Python: recognising them (DLPack / __cuda_array_interface__), allocating results
as the caller's kind of array (CuPy, PyTorch), and bringing small arguments to the host."""
from __future__ import annotations

import numpy as np

_DL_CUDA, _DL_CUDA_MANAGED = 2, 13  # DLPack device types


def is_cuda_array(a) -> bool:
    """True for arrays on a CUDA device (CuPy, PyTorch CUDA tensors, JAX GPU arrays, Numba...)."""
    if a is None or isinstance(a, np.ndarray):
        return False
    dev = getattr(a, "__dlpack_device__", None)
    if dev is not None:
        try:
            return dev()[0] in (_DL_CUDA, _DL_CUDA_MANAGED)
        except Exception:  # noqa: BLE001  (a CPU tensor may refuse; then it is not a CUDA array)
            return False
    return hasattr(a, "__cuda_array_interface__")


def _framework(a) -> str:
    return type(a).__module__.split(".")[0]


def empty_like_kind(a, shape, argument: str):
    """A new float32 array of `shape` of the same kind and on the same device as `a`."""
    kind = _framework(a)
    if kind == "cupy":
        import cupy
        with cupy.cuda.Device(a.device.id):
            return cupy.empty(shape, dtype=cupy.float32)
    if kind == "torch":
        import torch
        return torch.empty(shape, dtype=torch.float32, device=a.device)
    raise TypeError(f"{argument}: results are allocated for CuPy and PyTorch arrays; for {type(a).__name__} "
                    f"pass out= (a writable float32 CUDA array of shape {tuple(shape)})")


def apply(x, out, shape, argument: str, on_device, on_host):
    """An operator on x as every cuda-capable one is called: a CUDA x (or out) on the GPU where it
    lies, into ``out`` or a new float32 array of x's kind of `shape` (``on_device(x, out)``); a
    NumPy x on the host, into a new NumPy array (``on_host(x)``; ``out=`` is for CUDA arrays only)."""
    if is_cuda_array(x) or is_cuda_array(out):
        out = empty_like_kind(x, shape, argument) if out is None else out
        on_device(x, out)
        return out
    if out is not None:
        raise ValueError("out: only with CUDA arrays (NumPy results are returned new)")
    return on_host(x)


def to_host(a, argument: str) -> np.ndarray:
    """A small argument (matrices) as a NumPy array, from the host or a GPU array."""
    if not is_cuda_array(a):
        return a
    if hasattr(a, "get"):  # CuPy
        return a.get()
    if hasattr(a, "detach"):  # PyTorch
        return a.detach().cpu().numpy()
    raise TypeError(f"{argument}: pass a NumPy array (or a CuPy/PyTorch one)")


def array_module(a, argument: str):
    """NumPy for host arrays, CuPy for CuPy arrays: the module an algorithm's vector arithmetic uses."""
    if not is_cuda_array(a):
        return np
    if _framework(a) == "cupy":
        import cupy
        return cupy
    raise TypeError(f"{argument}: this algorithm runs on NumPy or CuPy arrays; with {type(a).__name__} call "
                    f"forward/back in your own loop (examples/gpu_arrays.py)")
