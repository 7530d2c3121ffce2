#!/usr/bin/env python3
"""Reference values of libFitPofB's TLondon1D2L for tests/musr/london_layers_test.cpp (numpy; run
from the repository root: python3 tests/musr/reference/london_layers_reference.py).

Written from the library's documented rules, independently of the C++ code (the TRIM.SP reading,
the grid and P(t) as in london_hs_reference.py):
  B(z) = B0 outside the layers [d, d + t1 + t2]; a_j exp(-z/l_j) + b_j exp(z/l_j) in layer j, the
  four coefficients from B = B0 at both outer surfaces and B, l^2 dB/dz continuous at the inner
  interface (numpy's linear solve); its minimum by a fine scan refined by golden sections;
  P(B_i), B_i = i dB, the sum over the depths z of field B_i (bisection on the falling and the
  rising branch) of n(z)/|dB/dz|, on the bins from floor(Bmin/dB) (one lower on a bin) to
  ceil(B0/dB) (one higher on a bin), B0 itself without depth; normalised to dB sum P = 1; the
  muons of the dead layer and of the substrate beyond d + t1 + t2 mixed in as the library's
  Gaussian line at B0; P(t) by direct cosine sums.
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from london_hs_reference import bins, density, grid, layer_fraction, mix_line, pol, read_profile  # noqa: E402


def bilayer(b0, d, t1, t2, l1, l2):
    z1, z2 = d + t1, d + t1 + t2
    e = math.exp
    # unknowns a1 b1 a2 b2
    m = np.array([[e(-d / l1), e(d / l1), 0, 0],
                  [0, 0, e(-z2 / l2), e(z2 / l2)],
                  [e(-z1 / l1), e(z1 / l1), -e(-z1 / l2), -e(z1 / l2)],
                  [-l1 * e(-z1 / l1), l1 * e(z1 / l1), l2 * e(-z1 / l2), -l2 * e(z1 / l2)]], dtype=float)
    a1, b1, a2, b2 = np.linalg.solve(m, np.array([b0, b0, 0.0, 0.0]))

    def field(z):
        if z < d or z > z2:
            return b0
        if z <= z1:
            return a1 * e(-z / l1) + b1 * e(z / l1)
        return a2 * e(-z / l2) + b2 * e(z / l2)

    def slope(z):
        if z <= z1:
            return (-a1 * e(-z / l1) + b1 * e(z / l1)) / l1
        return (-a2 * e(-z / l2) + b2 * e(z / l2)) / l2

    zs = np.linspace(d, z2, 20001)
    k = int(np.argmin([field(z) for z in zs]))
    lo, hi = zs[max(k - 1, 0)], zs[min(k + 1, len(zs) - 1)]
    g = (math.sqrt(5) - 1) / 2
    for _ in range(200):
        c, dd = hi - g * (hi - lo), lo + g * (hi - lo)
        if field(c) < field(dd):
            hi = dd
        else:
            lo = c
    zmin = 0.5 * (lo + hi)
    return field, slope, zmin, field(zmin), z2


def root(f, target, a, b):
    fa = f(a) - target
    for _ in range(200):
        m = 0.5 * (a + b)
        fm = f(m) - target
        if (fm < 0) == (fa < 0):
            a, fa = m, fm
        else:
            b = m
    return 0.5 * (a + b)


def pofb(prof, b0, d, t1, t2, l1, l2, dt=0.01, db=0.5):
    z, n = prof
    field, slope, zmin, bmin, zend = bilayer(b0, d, t1, t2, l1, l2)
    m = grid(dt, db)
    first, last = bins(bmin, b0, m, db)
    p = [0.0] * m
    for i in range(first, last + 1):
        b = i * db
        if not (bmin < b < b0):
            continue
        for za, zb in ((d, zmin), (zmin, zend)):
            zz = root(field, b, za, zb)
            p[i] += density(z, n, zz) / abs(slope(zz))
    return mix_line(p, layer_fraction(z, n, d) + 1.0 - layer_fraction(z, n, zend), b0, db)


if __name__ == "__main__":
    prof = read_profile("22_0")
    for args in [(94.717, 10.5, 30.0, 50.0, 100.0, 140.0), (300.0, 2.0, 60.0, 40.0, 180.0, 60.0)]:
        field, slope, zmin, bmin, zend = bilayer(*args)
        p = pofb(prof, *args)
        print(args, "zmin %.12g Bmin %.12g" % (zmin, bmin))
        print("  {" + ", ".join("%.15g" % pol(p, 25.0, t) for t in (0.0, 0.123, 1.0, 3.3, 7.77)) + "}")
