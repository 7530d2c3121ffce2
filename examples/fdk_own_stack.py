"""Back-project a projection stack made with NumPy with tomoraster's fdk back-projector.

The stack here is the analytic line integral of a ball through a circular cone-beam orbit,
ramp-filtered row by row with NumPy (a plain FDK pre-processing: cosine weight, ramp filter).
"""
import numpy as np

import tomoraster

n, rows, cols, pixel = 180, 96, 128, 1.0
sid, sdd, radius = 500.0, 1000.0, 30.0
mats, stack = [], []
u = (np.arange(cols) - (cols - 1) / 2) * pixel
v = (np.arange(rows) - (rows - 1) / 2) * pixel
uu, vv = np.meshgrid(u, v)
for a in np.linspace(0, 2 * np.pi, n, endpoint=False):
    c, s = np.cos(a), np.sin(a)
    R = np.array([[-s, c, 0.0], [0.0, 0.0, 1.0], [c, s, 0.0]])
    K = np.array([[sdd / pixel, 0, (cols - 1) / 2], [0, sdd / pixel, (rows - 1) / 2], [0, 0, 1]])
    mats.append(K @ np.hstack([R, [[0.0], [0.0], [sid]]]))
    # Chord of each ray through a ball of `radius` at the origin (source at distance sid).
    d = np.sqrt(uu**2 + vv**2 + sdd**2)
    p = sid * np.sqrt(uu**2 + vv**2) / d  # distance of the ray from the centre
    chord = 2 * np.sqrt(np.clip(radius**2 - p**2, 0, None))
    weighted = chord * sdd / d  # cosine weight
    ramp = np.abs(np.fft.fftfreq(cols))
    stack.append(np.real(np.fft.ifft(np.fft.fft(weighted, axis=1) * ramp, axis=1)))
proj = np.ascontiguousarray(np.array(stack, dtype=np.float32))
mats = np.array(mats)

vol = tomoraster.fdk.backproject(proj, mats, voxels=[96, 96, 96], voxel_mm=[1.0] * 3, backend="auto")
centre = vol[40:56, 40:56, 40:56].mean()
outside = vol[:10, :10, :10].mean()
print(f"volume {vol.shape}: mean at the centre {centre:.4g}, in a corner {outside:.4g} (ratio {centre / max(abs(outside), 1e-30):.1f})")
