#!/usr/bin/env python3
"""Reference values of libBNMR's SExpRlx for tests/musr/sexp_relaxation_test.cpp.

Independent of tomoraster's quadrature: mpmath's tanh-sinh quadrature at 30 digits of the
library's two integrals, written in the variable of the library (the implantation time t'):
  0 <= t <= D: int_0^t exp(-(t - t')/tau) exp(-(lam (t - t'))^beta) dt' / (tau (1 - exp(-t/tau)))
  t > D:       int_0^D exp(-(D - t')/tau) exp(-(lam (t - t'))^beta) dt' / (tau (1 - exp(-D/tau)))
with tau = 1.210 s. Run: python3 sexp_relaxation_reference.py
"""
import mpmath as mp

mp.mp.dps = 30
TAU = mp.mpf("1.210")


def sexp(t, pulse, lam, beta):
    t, pulse, lam, beta = (mp.mpf(x) for x in (t, pulse, lam, beta))
    if t < 0:
        return mp.mpf(0)
    if t <= pulse:
        f = lambda s: mp.exp(-(t - s) / TAU) * mp.exp(-((lam * (t - s)) ** beta))
        return mp.quad(f, [0, t]) / (TAU * (1 - mp.exp(-t / TAU)))
    f = lambda s: mp.exp(-(pulse - s) / TAU) * mp.exp(-((lam * (t - s)) ** beta))
    return mp.quad(f, [0, pulse]) / (TAU * (1 - mp.exp(-pulse / TAU)))


CASES = [
    # t, pulse, lambda, beta: the example's fitted values and a few others
    ("0.225", "1", "4.16", "0.433"),
    ("0.5", "1", "4.16", "0.433"),
    ("1", "1", "4.16", "0.433"),
    ("1.3", "1", "4.16", "0.433"),
    ("4.025", "1", "4.16", "0.433"),
    ("8.975", "1", "4.16", "0.433"),
    ("0.7", "2", "0.8", "1.7"),
    ("3.3", "2", "0.8", "1.7"),
    ("0.003", "0.01", "30", "0.5"),
    ("0.4", "0.01", "30", "0.5"),
]

if __name__ == "__main__":
    for c in CASES:
        print("{%s, %s, %s, %s, %s}," % (c + (mp.nstr(sexp(*c), 17),)))
