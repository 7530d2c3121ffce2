"""From TIFF files to a reconstruction, as a CT user holds the data: one TIFF per projection of raw
detector counts, a flat field (beam, no object) and a dark field (no beam). The example first
writes such files for a ball of attenuation MU seen by a circular cone-beam orbit (the counts
from the ball's exact chords, so nothing here comes from tomoraster's own projector), then reads
them with `tomoraster.fdk.read_projections`, turns counts into line integrals with
`fdk.flat_dark`, describes the orbit with `fdk.circular_orbit` and reconstructs by FDK, SIRT and
TV. The value at the centre is MU to a few percent.
"""
import pathlib
import struct

import numpy as np

from tomoraster import fdk

VIEWS, ROWS, COLS, PIXEL = 36, 48, 64, 2.0   # projections over 360°, detector rows/columns, pitch (mm)
SID, SDD = 400.0, 700.0                      # source–isocentre and source–detector distances (mm)
RADIUS, MU = 25.0, 0.02                      # the ball (mm, mm⁻¹)
DARK, FLAT = 120.0, 20000.0                  # detector counts without beam and without object


def write_tiff(path, image):
    """One uncompressed 32-bit float TIFF page (a detector's own software would write these)."""
    image = np.ascontiguousarray(image, dtype="<f4")
    rows, cols = image.shape
    head = b"II*\x00" + struct.pack("<I", 8 + image.nbytes)
    tags = [(256, 4, cols), (257, 4, rows), (258, 3, 32), (259, 3, 1), (262, 3, 1), (273, 4, 8),
            (277, 3, 1), (278, 4, rows), (279, 4, image.nbytes), (339, 3, 3)]
    ifd = struct.pack("<H", len(tags)) + b"".join(
        struct.pack("<HHI", t, k, 1) + (struct.pack("<HH", v, 0) if k == 3 else struct.pack("<I", v))
        for t, k, v in tags) + struct.pack("<I", 0)
    pathlib.Path(path).write_bytes(head + image.tobytes() + ifd)


# 1. The detector's files: counts = dark + (flat − dark)·exp(−∫μ), per pixel ray of the orbit.
angles = np.linspace(0.0, 360.0, VIEWS, endpoint=False)
u = (np.arange(COLS) - (COLS - 1) / 2) * PIXEL
v = (np.arange(ROWS) - (ROWS - 1) / 2) * PIXEL
uu, vv = np.meshgrid(u, v)
closest = SID * np.sqrt(uu**2 + vv**2) / np.sqrt(uu**2 + vv**2 + SDD**2)  # ray's distance from the centre
chords = MU * 2 * np.sqrt(np.clip(RADIUS**2 - closest**2, 0, None))    # the same from every angle
folder = pathlib.Path("ct_tiff")
(folder / "projections").mkdir(parents=True, exist_ok=True)
for n in range(VIEWS):
    write_tiff(folder / "projections" / f"proj_{n:04d}.tif", DARK + (FLAT - DARK) * np.exp(-chords))
write_tiff(folder / "flat.tif", np.full((ROWS, COLS), FLAT))
write_tiff(folder / "dark.tif", np.full((ROWS, COLS), DARK))

# 2. Read them back as a user would, and normalise.
counts = fdk.read_projections(folder / "projections")            # (views, rows, cols), name order
flat, dark = fdk.read_projections(folder / "flat.tif"), fdk.read_projections(folder / "dark.tif")
line_integrals = fdk.flat_dark(counts, flat, dark)               # −ln((I − D)/(F − D))

# 3. The geometry as one describes a scanner, and three reconstructions of it.
geometry = fdk.circular_orbit(ROWS, COLS, PIXEL, SID, SDD, voxels=(48, 48, 48), voxel_mm=1.5, angles_deg=angles)
print(geometry)
volumes = {
    "fdk": fdk.fdk(line_integrals, geometry.matrices, voxels=geometry.voxels, voxel_mm=geometry.voxel_mm,
                   backend="cpu", parker=False),
    "sirt": fdk.sirt(line_integrals, geometry, iterations=30, backend="cpu"),
    "tv": fdk.tv(line_integrals, geometry, iterations=30, tv_lambda=1e-5, backend="cpu"),
}
c = np.array(geometry.in_shape) // 2
for name, vol in volumes.items():
    centre = float(vol[c[0] - 3:c[0] + 3, c[1] - 3:c[1] + 3, c[2] - 3:c[2] + 3].mean())
    print(f"{name}: centre {centre:.5f} mm^-1 (true {MU})")
