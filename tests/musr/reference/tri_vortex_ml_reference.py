"""Reference values of libFitPofB's TBulkTriVortexML for tests/musr/tri_vortex_ml_test.cpp.

Written from the library's documented model, independently of the C++ code: the modified-London
field B(x, y) of a triangular lattice by direct summation of its Fourier series at the points of
an N x N grid over the rectangular cell (period a along x, sqrt(3) a along y, two vortices), the
quarter [0, N/2)^2 histogrammed at bin ceil(B/dB), and P(t) = sum_k p_k cos(2 pi i k / M + phi)
at the grid times t_i = i / (gbar (M - 1) dB), linearly interpolated in t.
"""
import math
import numpy as np

PHI0 = 2.067833848e7  # G nm^2
GBAR = 0.0135538817   # MHz/G


def field_grid(b, lam, xi, n):
    bc2 = PHI0 / (2 * math.pi * xi * xi)
    if b >= bc2 or lam < xi / math.sqrt(2):
        return np.full((n, n), b)
    omb = 1 - b / bc2
    a = math.sqrt(2 * PHI0 / (math.sqrt(3) * b))
    x = np.arange(n) * a / n               # along a
    y = np.arange(n) * math.sqrt(3) * a / n  # along sqrt(3) a
    X, Y = np.meshgrid(x, y)               # rows: y, columns: x
    out = np.zeros((n, n))
    for m in range(-n // 2, n // 2):
        for k in range(-n // 2, n // 2):
            if (m + k) % 2:
                continue
            gx, gy = 2 * math.pi * m / a, 2 * math.pi * k / (math.sqrt(3) * a)
            g2 = gx * gx + gy * gy
            c = math.exp(-xi * xi * g2 / (2 * omb)) / (1 + lam * lam * g2 / omb)
            out += c * np.cos(gx * X + gy * Y)
    return b * out


def pol(phase, b, lam, xi, n, dt, db, times):
    m = int(1.0 / (GBAR * dt * db))
    m = m + 1 if m % 2 else m + 2
    q = field_grid(b, lam, xi, n)[: n // 2, : n // 2].ravel()
    idx = np.ceil(np.abs(q) / db).astype(int)
    w = np.bincount(idx[idx < m], minlength=m) / q.size
    k = np.arange(m)
    tbin = 1.0 / (GBAR * (m - 1) * db)
    out = []
    for t in times:
        if t < 0:
            out.append(math.cos(math.radians(phase)))
            continue
        i = int(t / tbin)
        p = [np.sum(w * np.cos(2 * math.pi * j * k / m + math.radians(phase))) for j in (i, i + 1)]
        out.append(p[0] + (p[1] - p[0]) * (t / tbin - i))
    return out


if __name__ == "__main__":
    times = [-0.1, 0.0, 0.123, 1.0, 3.3]
    for par in [(10.34, 112.82363, 170.457, 4.0), (-30.0, 2000.0, 95.0, 3.0)]:
        print(par, ["%.15g" % v for v in pol(*par, 16, 0.01, 0.5, times)])
