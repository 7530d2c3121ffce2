"""RabbitCT geometry for the ASTRA side by side: our 3×4 matrices, ASTRA's cone_vec rows from them,
an analytic projection stack (balls) and, for checks without a GPU, ASTRA's BP rule in NumPy.

`xp` is numpy or cupy: the stack is built where it will be back-projected.
"""
from __future__ import annotations

import math

import numpy as np

# RabbitCT / Siemens Artis zee (compute/fdk/geometry.hpp, docs/fdk.md).
D_SI, D_SD, ARC_DEG = 785.0, 1200.0, 200.0


def rabbitct_matrices(n: int, cols: int, rows: int, pixel_mm: float) -> np.ndarray:
    """(n, 3, 4) float64 as compute/fdk/geometry.cpp's CArmGeometry::matrix builds them.

    Source at D_si·(cos β, sin β, 0), β_k = k·200°/(n−1); columns along e_u = (−sin β, cos β, 0),
    rows along +z, principal point at the detector centre ((cols−1)/2, (rows−1)/2), pixel centres
    at integer (u, v); the matrix is divided by D_si so that w = 1 at the isocentre.
    """
    f = D_SD / pixel_mm
    u0, v0 = 0.5 * (cols - 1), 0.5 * (rows - 1)
    out = np.empty((n, 3, 4))
    for k in range(n):
        b = math.radians(k * ARC_DEG / (n - 1))
        c, s = math.cos(b), math.sin(b)
        r2 = np.array([-c, -s, 0.0, D_SI])
        out[k, 0] = (f * np.array([-s, c, 0.0, 0.0]) + u0 * r2) / D_SI
        out[k, 1] = (f * np.array([0.0, 0.0, 1.0, 0.0]) + v0 * r2) / D_SI
        out[k, 2] = r2 / D_SI
    return out


def cone_vec_from_matrices(P: np.ndarray, cols: int, rows: int, pixel_mm: float) -> np.ndarray:
    """ASTRA's cone_vec rows (src, d, u, v; 12 numbers per view) from matrices P = [M | p4].

    Derivation, per view (nothing assumed about the orbit):
    * Scale P so that the third row of M, m3, has unit length (sign: w > 0 in front of the source).
      Then w(x) = m3·x + p34 is the distance of x from the source along the principal axis.
    * Source s: the null vector of P, P·(s, 1) = 0, i.e. s = −M⁻¹p4 (so w(x) = m3·(x − s)).
    * The ray through pixel (u, v) has direction r = M⁻¹(u, v, 1)ᵀ, and m3·r = 1 (third component
      of M r). The detector plane at distance D from the source is {y : m3·(y − s) = D}, so the
      pixel lands at y(u, v) = s + D·M⁻¹(u, v, 1)ᵀ — linear in (u, v):
      y = s + D·M⁻¹e3 + u·(D·M⁻¹e1) + v·(D·M⁻¹e2).
    * ASTRA's u and v vectors are the steps between neighbouring pixels: D·M⁻¹e1 and D·M⁻¹e2;
      D is fixed by the physical pixel pitch, |D·M⁻¹e1| = pixel_mm (any D projects alike; D sets
      only ASTRA's ray-density weight, so the physical one keeps its scale meaningful).
    * ASTRA's d is the detector centre; its pixel (i, j) has its centre at
      d + (i − cols/2 + 0.5)·u + (j − rows/2 + 0.5)·v, i.e. d = y((cols−1)/2, (rows−1)/2) in our
      pixel-centres-at-integers convention.
    """
    vecs = np.empty((P.shape[0], 12))
    for k, Pk in enumerate(P):
        Pk = Pk / np.linalg.norm(Pk[2, :3])
        M, p4 = Pk[:, :3], Pk[:, 3]
        s = -np.linalg.solve(M, p4)
        Minv = np.linalg.inv(M)
        centre = np.array([0.0, 0.0, 0.0, 1.0])  # w must be positive at the isocentre (in front)
        if Pk[2] @ centre < 0:
            Minv = -Minv
        D = pixel_mm / np.linalg.norm(Minv[:, 0])
        u, v = D * Minv[:, 0], D * Minv[:, 1]
        d = s + D * Minv[:, 2] + 0.5 * (cols - 1) * u + 0.5 * (rows - 1) * v
        vecs[k] = np.concatenate([s, d, u, v])
    return vecs


def astra_pixel(vec: np.ndarray, x: np.ndarray, cols: int, rows: int) -> np.ndarray:
    """Where ASTRA's convention puts world point x on the detector of one cone_vec row, in our
    pixel units (centres at integers): intersect the ray s→x with the plane through d spanned by
    u, v and solve for the coordinates relative to pixel (0, 0)."""
    s, d, u, v = vec[0:3], vec[3:6], vec[6:9], vec[9:12]
    # s + t(x − s) = d + a·u + b·v  →  [u v −(x−s)]·(a, b, t) = s − d
    a, b, _ = np.linalg.solve(np.column_stack([u, v, -(x - s)]), s - d)
    return np.array([a + 0.5 * (cols - 1), b + 0.5 * (rows - 1)])


def check_geometry(P: np.ndarray, vecs: np.ndarray, cols: int, rows: int, points: int = 6) -> float:
    """Largest pixel distance between P's projection and ASTRA's of a few points in the volume."""
    rng = np.random.default_rng(3)
    worst = 0.0
    for k in np.linspace(0, len(P) - 1, 5).astype(int):
        for x in rng.uniform(-100, 100, size=(points, 3)):
            h = P[k] @ np.append(x, 1.0)
            ours = h[:2] / h[2]
            worst = max(worst, float(np.abs(ours - astra_pixel(vecs[k], x, cols, rows)).max()))
    return worst


def check_with_astra(astra, P: np.ndarray, vecs: np.ndarray, cols: int, rows: int) -> float:
    """ASTRA's own (CPU) geometry code on our cone_vec rows: astra.experimental.getProjectedBBox of
    a tiny box around a point gives the row range it projects to; its midpoint must be our v.
    Largest difference in pixels over a few views and points (ASTRA reports rows only)."""
    worst, e = 0.0, 1e-3
    for k in np.linspace(0, len(P) - 1, 4).astype(int):
        pg = astra.create_proj_geom("cone_vec", rows, cols, vecs[k:k + 1])
        for x in ((0.0, 0.0, 0.0), (30.0, -50.0, 40.0), (-80.0, 20.0, -100.0), (90.0, 60.0, 110.0)):
            lo, hi = astra.experimental.getProjectedBBox(pg, *(c + s for c in x for s in (-e, e)))
            h = P[k] @ np.append(x, 1.0)
            worst = max(worst, abs(0.5 * (lo + hi) - h[1] / h[2]))
    return worst


# Balls (centre mm, radius mm, attenuation mm⁻¹): a head-sized ball and smaller ones, so that the
# back-projected volume has sharp streaks where a convention error (half a pixel, a flip) shows.
BALLS = [((0.0, 0.0, 0.0), 90.0, 0.02), ((30.0, -20.0, 10.0), 25.0, 0.01),
         ((-40.0, 35.0, -30.0), 12.0, 0.03), ((55.0, 50.0, 60.0), 6.0, 0.05)]


def ball_projections(xp, vecs: np.ndarray, cols: int, rows: int) -> "xp.ndarray":
    """(n, rows, cols) float32 line integrals of BALLS along each ray (the exact chord lengths),
    an independent model: no projector of ours or ASTRA's is used."""
    n = len(vecs)
    out = xp.empty((n, rows, cols), dtype=xp.float32)
    i = xp.arange(cols, dtype=xp.float64) - 0.5 * (cols - 1)
    j = xp.arange(rows, dtype=xp.float64) - 0.5 * (rows - 1)
    for k in range(n):
        s, d, u, v = (xp.asarray(vecs[k, a:a + 3]) for a in (0, 3, 6, 9))
        y = d + i[None, :, None] * u + j[:, None, None] * v  # (rows, cols, 3) pixel centres
        r = y - s
        r /= xp.sqrt((r * r).sum(axis=-1, keepdims=True))
        acc = xp.zeros((rows, cols))
        for c, radius, mu in BALLS:
            cs = xp.asarray(c) - s
            b = r @ cs  # distance along the ray to the point nearest the centre
            dist2 = float(cs @ cs) - b * b
            acc += mu * 2.0 * xp.sqrt(xp.clip(radius * radius - dist2, 0.0, None))
        out[k] = acc.astype(xp.float32)
    return out


def astra_scale(voxel_mm: float, pixel_mm: float) -> float:
    """ASTRA's BP3D weight over ours, a constant for this geometry.

    Ours (RabbitCT): 1/w² = (D_si/t)², t the depth of the voxel along the principal axis.
    ASTRA's BP is the adjoint of its ray-driven FP (line integrals in mm), voxel-driven: per view
    the weight is the ray density at the voxel times the voxel volume, V·(D_sd/t)²/a (V voxel
    volume, a pixel area; cuda/3d/cone_bp.cu: 1/fDen² with fOutputScale = V). Both use the same t,
    so ASTRA/ours = V·D_sd²/(a·D_si²) for every voxel and view.
    """
    return voxel_mm ** 3 * D_SD ** 2 / (pixel_mm ** 2 * D_SI ** 2)


def astra_rule_bp(proj: np.ndarray, vecs: np.ndarray, L: int, voxel_mm: float, pixel_mm: float) -> np.ndarray:
    """ASTRA's BP3D rule as its documentation and kernel state it, in NumPy for small checks here
    (no GPU, so no ASTRA): voxel centres −128 + (i + 0.5)·R, the cone_vec pixel convention, bilinear
    taps outside the detector read 0, weight astra_scale·(D_si/t)². Projections as ASTRA takes
    them: (rows, n, cols)."""
    rows, n, cols = proj.shape
    c = -0.5 * L * voxel_mm + (np.arange(L) + 0.5) * voxel_mm
    z, y, x = np.meshgrid(c, c, c, indexing="ij")
    pts = np.stack([x, y, z], axis=-1).reshape(-1, 3)
    vol = np.zeros(len(pts))
    for k in range(n):
        s, d, u, v = vecs[k, 0:3], vecs[k, 3:6], vecs[k, 6:9], vecs[k, 9:12]
        normal = np.cross(u, v)
        normal /= np.linalg.norm(normal)
        if normal @ (d - s) < 0:
            normal = -normal
        sdd = normal @ (d - s)
        t = (pts - s) @ normal  # depth along the principal axis
        hit = s + (pts - s) * (sdd / t)[:, None]
        a = (hit - d) @ u / (u @ u) + 0.5 * (cols - 1)  # u ⟂ v on our detectors
        b = (hit - d) @ v / (v @ v) + 0.5 * (rows - 1)
        vol += astra_scale(voxel_mm, pixel_mm) * (D_SI / t) ** 2 * _bilinear(proj[:, k, :], a, b)
    return vol.reshape(L, L, L).astype(np.float32)


def _bilinear(img: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """img sampled at column a, row b (centres at integers); taps outside read 0."""
    rows, cols = img.shape
    a0, b0 = np.floor(a).astype(int), np.floor(b).astype(int)
    fa, fb = a - a0, b - b0
    out = np.zeros(len(a))
    for di, wa in ((0, 1 - fa), (1, fa)):
        for dj, wb in ((0, 1 - fb), (1, fb)):
            ii, jj = a0 + di, b0 + dj
            ok = (ii >= 0) & (ii < cols) & (jj >= 0) & (jj < rows)
            out[ok] += (wa * wb)[ok] * img[jj[ok], ii[ok]]
    return out
