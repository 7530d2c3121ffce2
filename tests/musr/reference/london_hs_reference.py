#!/usr/bin/env python3
"""Reference values of libFitPofB's TLondon1DHS for tests/musr/london_hs_test.cpp (pure Python;
run from the repository root: python3 tests/musr/reference/london_hs_reference.py).

Written from the library's documented rules, independently of the C++ code:
  n(z): the TRIM.SP pairs after the word PARTICLES, the last pair once more when the file ends in
  white space, zeros every (z2 - z0)/2 up to 2100 A; n at z [nm] by a linear scan for the first
  depth >= 10 z and linear interpolation (from 0 before the first depth).
  B(z) = B0 exp(-(z - d)/lam) for d <= z <= 200 nm; P(B_i), B_i = i dB, is n(z(B_i)) lam / B_i on
  the bins from floor(Bmin/dB) (one lower on a bin) to ceil(B0/dB) (one higher on a bin),
  normalised to dB sum P = 1; the dead layer's fraction w (counts at depths < 10 d over all) is
  mixed in as a Gaussian of width 0.005/(2 pi gbar) G at B0, normalised alike.
  P(t) = dB sum_i P_i cos(2 pi i k / M + phi) at t_k = k / (gbar (M - 1) dB), a direct cosine sum
  (no FFT), linearly interpolated in t.
"""
import math

GBAR = 0.0135538817  # MHz/G, the library's
FOLDER = "tests/musr/musrfit/BMWlibs/profiles/TestProfile-"


def read_profile(label):
    text = open(FOLDER + label + ".rge").read()
    tok = text.split()
    k = tok.index("PARTICLES") + 1
    z = [float(v) for v in tok[k::2]]
    n = [float(v) for v in tok[k + 1::2]]
    if text[-1].isspace():
        z.append(z[-1])
        n.append(n[-1])
    dz = 0.5 * (z[2] - z[0])
    zz = z[-1]
    while zz < 2100.0:
        zz += dz
        z.append(zz)
        n.append(0.0)
    return z, n


def density(z, n, x):
    if x < 0:
        return 0.0
    for i in range(len(z)):
        if z[i] / 10.0 >= x:
            if i == 0:
                return n[0] * 10.0 * x / z[0]
            return abs(n[i - 1] + (n[i] - n[i - 1]) * (10.0 * x - z[i - 1]) / (z[i] - z[i - 1]))
    return 0.0


def layer_fraction(z, n, d):
    return sum(ni for zi, ni in zip(z, n) if zi < 10.0 * d) / sum(n)


def grid(dt, db):
    m = int(1.0 / (GBAR * dt * db))
    return m + 1 if m % 2 else m + 2


def bins(bmin, b0, m, db):
    """The library's first and last P(B) bins: one beyond the range's ends where they fall on a bin."""
    a1, a2 = math.floor(bmin / db), math.ceil(bmin / db)
    a3, a4 = math.floor(b0 / db), math.ceil(b0 / db)
    return (a1 if a1 < a2 else max(a1 - 1, 0)), min(a4 if a3 < a4 else a4 + 1, m - 1)


def mix_line(p, w, b0, db):
    """P(B) normalised, then the fraction w as the library's Gaussian line of 0.005/us at b0."""
    s = sum(p) * db
    p = [v / s for v in p]
    if w > 0:
        var = 0.005 ** 2 / (GBAR * GBAR * 4 * math.pi * math.pi)
        g = [math.exp(-(i * db - b0) ** 2 / (2 * var)) for i in range(len(p))]
        gs = sum(g) * db
        p = [(1 - w) * v + w * gi / gs for v, gi in zip(p, g)]
    return p


def pofb(prof, b0, d, lam, dt=0.01, db=0.5):
    z, n = prof
    m = grid(dt, db)
    first, last = bins(b0 * math.exp((d - 200.0) / lam), b0, m, db)
    p = [0.0] * m
    for i in range(first, last + 1):
        b = i * db
        if 0 < b <= b0:
            p[i] = density(z, n, d - lam * math.log(b / b0)) * lam / b
    return mix_line(p, layer_fraction(z, n, d), b0, db)


def pol(p, phase, t, db=0.5):
    m = len(p)
    tbin = 1.0 / (GBAR * (m - 1) * db)
    ph = math.radians(phase)
    nz = [(i, v) for i, v in enumerate(p) if v != 0.0]

    def at(k):
        return db * sum(v * math.cos(2 * math.pi * i * k / m + ph) for i, v in nz)

    k = int(t / tbin)
    a, b = at(k), at(k + 1)
    return a + (b - a) * (t / tbin - k)


def moments(p, db=0.5):
    m1 = db * sum(i * db * v for i, v in enumerate(p))
    m2 = db * sum((i * db - m1) ** 2 * v for i, v in enumerate(p))
    return m1, m2


if __name__ == "__main__":
    prof = read_profile("22_0")
    print("rows", len(prof[0]), "last real", prof[0][84], prof[0][85], "pad step", 0.5 * (prof[0][2] - prof[0][0]))
    print("n(10.5 nm) = %.15g, n(0.5 nm) = %.15g, n(150.01 nm) = %.15g" % (
        density(*prof, 10.5), density(*prof, 0.5), density(*prof, 150.01)))
    print("w(10.5 nm) = %.15g, w(0.9 nm) = %.15g" % (layer_fraction(*prof, 10.5), layer_fraction(*prof, 0.9)))
    for b0, d, lam in [(94.717, 10.5, 115.98), (300.0, 0.0, 40.0)]:
        p = pofb(prof, b0, d, lam)
        m1, m2 = moments(p)
        print((b0, d, lam), "mean %.15g  second central %.15g" % (m1, m2))
        for phase, t in [(25.4956, 0.0), (25.4956, 0.123), (25.4956, 1.0), (-40.0, 3.3), (0.0, 7.77)]:
            print("  P(phase %g, t %g) = %.15g" % (phase, t, pol(p, phase, t)))
