#!/usr/bin/env python3
"""Reference values of libGapIntegrals' superfluid densities for tests/musr/gap_integrals_test.cpp.

Independent of tomoraster's reduction to one variable: mpmath quadrature of the library's own
integrals over energy E (meV) and the angular variable, with its cut-off E_c = 4(T + Delta)
(2(T + Delta) for the s-wave) and 2 k_B = 0.172346648 meV/K, the gap
Delta(T) = Delta0 tanh(c0 sqrt(aG (Tc/T - 1))).
Run: python3 gap_integrals_reference.py
"""
import mpmath as mp

mp.mp.dps = 20
TWO_KB = mp.mpf("0.172346648")


def sech2(x):
    return 1 / mp.cosh(x) ** 2


def gap(t, tc, d0, c0, ag):
    return d0 * mp.tanh(c0 * mp.sqrt(ag * (tc / t - 1)))


def rho(kind, t, tc, d0, c0, ag):
    t = mp.mpf(t)
    kt2 = TWO_KB * t
    d = gap(t, mp.mpf(tc), mp.mpf(d0), mp.mpf(c0), mp.mpf(ag))
    if kind == "s":
        ec = 2 * (t + d)
        return 1 - mp.quad(lambda e: sech2(mp.sqrt(e * e + d * d) / kt2), [0, ec]) / kt2
    ec = 4 * (t + d)
    # The energy integral at fixed gap value g (meV), split where the integrand has fallen.
    def energy(g):
        return mp.quad(lambda e: sech2(mp.sqrt(e * e + g * g) / kt2), mp.linspace(0, ec, 9))
    if kind == "d":  # phi = x pi / 2 on [0, 1]: gap Delta cos(2 phi) = Delta cos(pi x)
        inner = lambda x: energy(d * mp.cos(mp.pi * x))
        pts = [0, mp.mpf("0.25"), mp.mpf("0.45"), mp.mpf("0.49"), mp.mpf("0.5"), mp.mpf("0.51"), mp.mpf("0.55"), mp.mpf("0.75"), 1]
        return 1 - mp.quad(inner, pts) / kt2
    z_pts = [0, mp.mpf("0.5"), mp.mpf("0.9"), mp.mpf("0.99"), 1]
    if kind in ("point_ab", "point_c"):
        g = lambda z: d * mp.sqrt(1 - z * z)
    else:
        g = lambda z: d * z
    if kind.endswith("ab"):
        return 1 - mp.mpf(3) / 2 * mp.quad(lambda z: (1 - z * z) * energy(g(z)), z_pts) / kt2
    return 1 - 3 * mp.quad(lambda z: z * z * energy(g(z)), z_pts) / kt2


PARAMS = ("4.47", "1.547", "1.468", "1.33333")  # the example's Tc, Delta0, c0, aG
CASES = [("d", "0.5"), ("d", "2.0"), ("d", "4.3"), ("s", "0.5"), ("s", "2.0"), ("s", "4.3"),
         ("point_ab", "2.0"), ("point_c", "2.0"), ("line_ab", "2.0"), ("line_c", "2.0")]

if __name__ == "__main__":
    for kind, t in CASES:
        print('{"%s", %s, %s},' % (kind, t, mp.nstr(rho(kind, t, *PARAMS), 15)))
