"""FDK on a projection stack made with NumPy, with tomoraster's fdk: the line integrals of a
ball of attenuation MU through a circular cone-beam orbit, reconstructed by `tomoraster.fdk.fdk`
(cosine and Parker weights, ramp filter, back-projection). The value at the centre is the ball's
attenuation, the value between the ball and the field of view's edge is zero, to a few percent.
"""
import numpy as np

import tomoraster

n, rows, cols, pixel = 180, 96, 128, 1.0   # projections, detector rows and columns (mm pitch)
sid, sdd, radius, MU = 500.0, 1000.0, 20.0, 0.02   # source–isocentre, source–detector (mm); ball
u = (np.arange(cols) - (cols - 1) / 2) * pixel
v = (np.arange(rows) - (rows - 1) / 2) * pixel
uu, vv = np.meshgrid(u, v)
d = np.sqrt(uu**2 + vv**2 + sdd**2)
p = sid * np.sqrt(uu**2 + vv**2) / d  # each ray's distance from the ball's centre
line_integral = (MU * 2 * np.sqrt(np.clip(radius**2 - p**2, 0, None))).astype(np.float32)
mats, stack = [], []
for a in np.linspace(0, 2 * np.pi, n, endpoint=False):
    c, s = np.cos(a), np.sin(a)
    R = np.array([[-s, c, 0.0], [0.0, 0.0, 1.0], [c, s, 0.0]])
    K = np.array([[sdd / pixel, 0, (cols - 1) / 2], [0, sdd / pixel, (rows - 1) / 2], [0, 0, 1]])
    mats.append(K @ np.hstack([R, [[0.0], [0.0], [sid]]]))
    stack.append(line_integral)  # a centred ball looks the same from every angle
proj = np.ascontiguousarray(np.array(stack, dtype=np.float32))
mats = np.array(mats)

vol = tomoraster.fdk.fdk(proj, mats, voxels=[64, 64, 64], voxel_mm=[1.0] * 3, backend="auto")
z, y, x = np.indices(vol.shape) - (np.array(vol.shape)[:, None, None, None] - 1) / 2
r = np.sqrt(x**2 + y**2)
centre = vol[(r < 8) & (abs(z) < 8)].mean()
outside = vol[(r > 24) & (r < 28) & (abs(z) < 4)].mean()  # beyond the ball, inside the field of view
print(f"volume {vol.shape}: mean at the centre {centre:.4g} mm^-1 (true {MU}), outside the ball {outside:.2g} mm^-1")
