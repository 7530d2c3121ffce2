#!/usr/bin/env python3
"""Reference values of musrfit's PDepthProfile for tests/musr/depth_profile_test.cpp, computed
from the rge files directly (Python with SciPy, pip install scipy; run from the repository root:
python3 tests/musr/reference/depth_profile_reference.py).

musrfit's rule: n_j = N_j / sum_i N_i (z_i - z_{i-1}), cfd_j = sum_{i<=j} n_i, cfd read at the
first depth >= z (a staircase); the profile is the first whose energy lies within 900 eV.
At the cells' midpoints the staircase equals the interpolated curve tomoraster uses; between
them the curve is SciPy's monotone cubic (PchipInterpolator) through the staircase's midpoint
values, constant outside them.
"""
import os

FOLDER = "tests/musr/musrfit/DepthProfiles/1300Ar/TRIMSP"


def profile(energy):
    z, a = [], []
    for line in open(os.path.join(FOLDER, "SiC_1300x_52nm_48nm_E%d.rge" % energy)):
        s = line.strip()
        if s and s[0].isdigit():
            t = s.split()
            z.append(float(t[0]) / 10.0)
            a.append(float(t[1]))
    return z, cumulative(z, a)


def cumulative(z, a):
    """musrfit's stopping fraction up to each depth: n_j = N_j / sum_i N_i (z_i - z_{i-1})."""
    norm, prev = 0.0, 0.0
    for zi, ai in zip(z, a):
        norm += ai * (zi - prev)
        prev = zi
    c, cfd = 0.0, []
    for ai in a:
        c += ai / norm
        cfd.append(c)
    return cfd


def staircase(z, cfd, x):
    for j, zj in enumerate(z):
        if x <= zj:
            return cfd[j]
    return cfd[-1]


def smooth(z, cfd, x):
    from scipy.interpolate import PchipInterpolator

    mids = [0.5 * ((z[j - 1] if j else 0.0) + z[j]) for j in range(len(z))]
    if x <= mids[0]:
        return cfd[0]
    if x >= mids[-1]:
        return cfd[-1]
    return float(PchipInterpolator(mids, cfd)(x))


def pdepth(e_kev, f, x, rule):
    sets = [(e, profile(e)) for e in range(1000, 22001, 1000)]
    for e, (z, cfd) in sets:
        if abs(e - e_kev * 1000.0) * 0.001 < 0.9:
            edges = [cfd[0]] + [rule(z, cfd, xi) for xi in x] + [cfd[-1]]
            return sum(fk * (edges[k + 1] - edges[k]) for k, fk in enumerate(f))
    return 0.0


if __name__ == "__main__":
    f = (0.1531, 0.04051, 0.00447)
    for e in (2.0, 6.998, 12.9921, 21.9912, 22.95):
        print("E %-8g midpoints (40, 104): %.15g" % (e, pdepth(e, f, (40.0, 104.0), staircase)))
        print("E %-8g between (39.7, 103.8): %.15g" % (e, pdepth(e, f, (39.7, 103.8), smooth)))
        print("E %-8g midpoints, smooth: %.15g" % (e, pdepth(e, f, (40.0, 104.0), smooth)))
