"""GPU arrays in place: a CuPy (or PyTorch) projection stack back-projected by tomoraster's cuda
fdk back-projector into a CuPy volume, and glpet's cuda projector inside a CuPy ML-EM loop —
nothing goes through the host but the matrices (12 numbers a projection).

Needs a CUDA device, a tomoraster module built with CUDA, and CuPy (`pip install cupy-cuda13x`).
"""
import cupy as cp
import numpy as np

import tomoraster

# fdk: random projections on the GPU, a circular orbit, the volume comes back as a CuPy array.
n, rows, cols, pixel, sid, sdd = 90, 96, 128, 1.0, 500.0, 1000.0
mats = []
for a in np.linspace(0, 2 * np.pi, n, endpoint=False):
    c, s = np.cos(a), np.sin(a)
    R = np.array([[-s, c, 0.0], [0.0, 0.0, 1.0], [c, s, 0.0]])
    K = np.array([[sdd / pixel, 0, (cols - 1) / 2], [0, sdd / pixel, (rows - 1) / 2], [0, 0, 1]])
    mats.append(K @ np.hstack([R, [[0.0], [0.0], [sid]]]))
mats = np.array(mats)
proj = cp.random.random((n, rows, cols), dtype=cp.float32)
bp = tomoraster.fdk.Backprojector(voxels=[128, 128, 96], voxel_mm=[0.5] * 3, backend="cuda")
vol = bp.backproject(proj, mats)                      # cupy.ndarray (96, 128, 128) on the same GPU
out = cp.empty_like(vol)
bp.backproject(proj, mats, out=out)                   # written in place: out.data.ptr is unchanged
print("fdk:", type(vol).__name__, vol.shape, float(cp.abs(vol - out).max()))

# glpet: ML-EM with the image, the data and the ratios on the GPU.
A = tomoraster.glpet.Projector("glpet_small.toml", backend="cuda", set={"glpet.voxels": [16, 16, 16]})
truth = cp.zeros(A.image_shape, dtype=cp.float32)
truth[6:10, 6:10, 6:10] = 1
y = cp.random.poisson(A.forward(truth) * 50).astype(cp.float32)
s = A.back(cp.ones(A.lor_count, dtype=cp.float32))
x = cp.where(s > 0, 1.0, 0.0).astype(cp.float32)
b = cp.empty_like(x)
for it in range(10):
    yt = A.forward(x)
    ratio = cp.where(yt > 0, y / cp.where(yt > 0, yt, 1), 0).astype(cp.float32)
    A.back(ratio, out=b)                              # into b, in place
    x = cp.where(s > 0, x * b / cp.where(s > 0, s, 1), 0).astype(cp.float32)
print("glpet ML-EM: total", float(x.sum()), "peak at", np.unravel_index(int(cp.argmax(x)), x.shape))
