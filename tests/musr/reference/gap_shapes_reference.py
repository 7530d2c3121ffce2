#!/usr/bin/env python3
"""Reference values of libGapIntegrals' shaped gaps (TGapAnSWave, TGapNonMonDWave1/2 and the
two-gap TGapCosSqDWave, TGapSinSqDWave) for
tests/musr/gap_shapes_test.cpp: mpmath quadrature of the library's own double integral over the
energy E (meV, up to its cut-off E_c) and the angle phi in [0, pi/2],
  rho = 1 - (1/2k_BT) (2/pi) int_0^{pi/2} int_0^{E_c} sech^2(sqrt(E^2 + Delta_k(phi)^2)/2k_BT) dE dphi,
with 2 k_B = 0.172346648 meV/K and Delta(T) = Delta0 tanh(c0 sqrt(aG (Tc/T - 1))), or without c0
and aG Delta0 tanh(1.82 (1.018 (Tc/T - 1))^0.51). The angular integral is split at the zeros of
the gap, found here with mpmath's root finder. The two-gap d-waves (Tc, Delta0_D, Delta0_S):
  rho = 1 - (2/2k_BT) (1/pi) int_0^pi w(phi) int_0^{E_c} sech^2(sqrt(E^2 + (Delta_D cos 2phi + Delta_S)^2)/2k_BT) dE dphi,
w = cos^2 phi or sin^2 phi, E_c = T + Delta_D (the library's cut-off, T in K read as meV).
Run: python3 gap_shapes_reference.py [two]  (with "two": the two-gap cases only)
"""
import sys
import mpmath as mp

mp.mp.dps = 18
TWO_KB = mp.mpf("0.172346648")


def sech2(x):
    return 1 / mp.cosh(x) ** 2


def gap_t(t, tc, d0, extra):
    if extra:
        c0, ag = extra
        return d0 * mp.tanh(c0 * mp.sqrt(ag * (tc / t - 1)))
    return d0 * mp.tanh(mp.mpf("1.82") * (mp.mpf("1.018") * (tc / t - 1)) ** mp.mpf("0.51"))


def gap_sq(kind, a, phi):
    if kind == "an_s":
        return (1 + a * mp.cos(4 * phi)) ** 2
    if kind == "non_mon1":
        return (a * mp.cos(2 * phi) + (1 - a) * mp.cos(6 * phi)) ** 2
    c2 = mp.cos(2 * phi) ** 2
    return 4 * a / 27 * c2 / (1 + a * c2) ** 3


def signed_gap(kind, a, phi):
    if kind == "an_s":
        return 1 + a * mp.cos(4 * phi)
    if kind == "non_mon1":
        return a * mp.cos(2 * phi) + (1 - a) * mp.cos(6 * phi)
    return mp.cos(2 * phi)


def zeros(kind, a):
    grid = mp.linspace(0, mp.pi / 2, 201)
    out = []
    for l, r in zip(grid[:-1], grid[1:]):
        if signed_gap(kind, a, l) * signed_gap(kind, a, r) < 0:
            out.append(mp.findroot(lambda p: signed_gap(kind, a, p), (l, r), solver="illinois"))
    return out


def rho(kind, a, t, tc, d0, extra=None):
    t, a, tc, d0 = mp.mpf(t), mp.mpf(a), mp.mpf(tc), mp.mpf(d0)
    extra = tuple(mp.mpf(v) for v in extra) if extra else None
    kt2 = TWO_KB * t
    d = gap_t(t, tc, d0, extra)
    ec = 4 * (t + (1 + a) * d) if kind == "an_s" else 4 * (t + d)

    def energy(phi):
        g2 = d * d * gap_sq(kind, a, phi)
        return mp.quad(lambda e: sech2(mp.sqrt(e * e + g2) / kt2), mp.linspace(0, ec, 9))

    pts = sorted(set(list(mp.linspace(0, mp.pi / 2, 9)) + zeros(kind, a)))
    return 1 - 2 / mp.pi * mp.quad(energy, pts) / kt2


GAP = ("4.47", "1.547")
PG = ("1.468", "1.33333")
CASES = [("an_s", "0.4", "0.5", PG), ("an_s", "0.4", "2.0", PG), ("an_s", "0.4", "4.3", PG),
         ("an_s", "1.5", "1.0", PG), ("an_s", "1.5", "3.0", PG),
         ("non_mon1", "0.3", "0.5", PG), ("non_mon1", "0.3", "2.0", PG), ("non_mon1", "0.3", "4.3", PG),
         ("non_mon2", "2.0", "1.0", PG), ("non_mon2", "2.0", "3.0", PG),
         ("an_s", "0.4", "2.0", None), ("non_mon1", "0.8", "1.5", None)]

def rho_two(kind, t, tc, d0d, d0s):
    t, tc, d0d, d0s = mp.mpf(t), mp.mpf(tc), mp.mpf(d0d), mp.mpf(d0s)
    kt2 = TWO_KB * t
    dd, ds = gap_t(t, tc, d0d, None), gap_t(t, tc, d0s, None)
    ec = t + dd
    w = (lambda p: mp.cos(p) ** 2) if kind == "cos_sq" else (lambda p: mp.sin(p) ** 2)

    def energy(phi):
        g2 = (dd * mp.cos(2 * phi) + ds) ** 2
        return w(phi) * mp.quad(lambda e: sech2(mp.sqrt(e * e + g2) / kt2), mp.linspace(0, ec, 5))

    f = lambda p: mp.cos(2 * p) + ds / dd
    grid = mp.linspace(0, mp.pi, 201)
    pts = list(mp.linspace(0, mp.pi, 9))
    for l, r in zip(grid[:-1], grid[1:]):
        if f(l) * f(r) < 0:
            pts.append(mp.findroot(f, (l, r), solver="illinois"))
    return 1 - 2 / mp.pi * mp.quad(energy, sorted(set(pts))) / kt2


TWO_CASES = [("cos_sq", "0.3", "1.0"), ("cos_sq", "0.3", "3.0"), ("sin_sq", "0.3", "3.0"), ("cos_sq", "2.2", "2.0")]

if __name__ == "__main__" and sys.argv[1:] == ["two"]:
    for kind, d0s, t in TWO_CASES:
        v = rho_two(kind, t, GAP[0], GAP[1], d0s)
        print('{"%s", %s, %s, %s},' % (kind, d0s, t, mp.nstr(v, 15)), flush=True)
elif __name__ == "__main__":
    for kind, a, t, extra in CASES:
        v = rho(kind, a, t, *GAP, extra)
        print('{"%s", %s, %s, %s, %s},' % (kind, a, t, "true" if extra else "false", mp.nstr(v, 15)), flush=True)
