#!/usr/bin/env python3
"""Reference values of libPNL_PippardFitter's PNL_PippardFitter for tests/musr/pippard_test.cpp
(numpy; run from the repository root: python3 tests/musr/reference/pippard_reference.py).

Written from the library's documented rules, independently of the C++ code:
  reduced temperature t, BCS gap ratio D(t) from Muehlschlegel's table (linear between its rows),
  xi_P(T) = xi0 l / (l J + xi0), J = D(t)/(1 - t^2) tanh(0.881925 D(t)/t) (t capped at 0.96),
  lambda_L(T) = lambda_L / sqrt(1 - t^4), alpha = (xi_P/lambda_L(T))^2 xi_P/xi0;
  q_j = x/(x^2 + alpha k(x)), x = 0.02 j (q_0 = 0), k(x) = 3/2 ((1 + x^2) atan x - x)/x^3 for
  j < N (N = fourier_points); b_k = Im FFT(q)_k (numpy's FFT, e^(-2 pi i jk/N)) divided by the
  b_k of largest modulus over k < N/2 at k = s; the depth step dz = xi_P 2 pi/(N 0.02);
  a film thinner than (N/2) dz: m = floor(D/dz), b_i = (b_i + b_(m - i + 2s))/(1 + b_(m+s)) for
  s <= i < m + s, 0 elsewhere; the field at depth x > 0: b_(floor(x/dz) + s) (0 beyond (N/2) dz),
  1 at x <= 0;
  n(z): the rows "depth[A] particles" (lines starting with a digit), n_j = N_j / sum N_i
  (z_i - z_(i-1)) per nm, read at z by the first depth >= z: n_0 z/(z_1 - z_0) before the first,
  else linear between the two rows, 0 beyond the last depth;
  P(t) = sum over z = 0, 1, 2, ... nm of n(z) cos(gamma B b(z - d) t + phi) (gamma =
  0.0851615503527 rad/(us G), phi in degrees), the field B outside for z < d, until 11 depths in
  a row have |term| < 1e-9; 1 for t <= 0.
tomoraster reads b between the bins instead (smooth in d): a cubic Hermite curve through the
bins' middles x_k = (k - s + 1/2) dz with the slopes (b_(k+1) - b_(k-1))/2 per bin, 0 at the first
middle, one-sided at the last valid bin; b_s below the first middle, 0 from the valid range's end
on. Both readings are printed ("library" and "smooth").
Derivatives by central differences of the smooth direct sum over 1e-5 relative (lambda_L, B)
and 1e-4 nm (d).
"""
import math

import numpy as np

GAMMA = 0.0851615503527
FOLDER = "tests/musr/musrfit/ASlibs/profiles/Sn_E"

TT = [1, 0.98, 0.96, 0.94, 0.92, 0.9, 0.88, 0.86, 0.84, 0.82, 0.8, 0.78, 0.76, 0.74, 0.72, 0.7, 0.68, 0.66, 0.64,
      0.62, 0.6, 0.58, 0.56, 0.54, 0.52, 0.5, 0.48, 0.46, 0.44, 0.42, 0.4, 0.38, 0.36, 0.34, 0.32, 0.3, 0.28, 0.26,
      0.24, 0.22, 0.2, 0.18, 0.16, 0.14]
EE = [0, 0.2436, 0.3416, 0.4148, 0.4749, 0.5263, 0.5715, 0.6117, 0.648, 0.681, 0.711, 0.7386, 0.764, 0.7874, 0.8089,
      0.8288, 0.8471, 0.864, 0.8796, 0.8939, 0.907, 0.919, 0.9299, 0.9399, 0.9488, 0.9569, 0.9641, 0.9704, 0.976,
      0.9809, 0.985, 0.9885, 0.9915, 0.9938, 0.9957, 0.9971, 0.9982, 0.9989, 0.9994, 0.9997, 0.9999, 1, 1, 1]


def gap(t):
    if t > 1.0:
        return 0.0
    if t < 0.14:
        return 1.0
    # np.interp wants ascending abscissae
    return float(np.interp(t, TT[::-1], EE[::-1]))


def xi_p(xi0, ell, t):
    t = min(t, 0.96)
    g = gap(t)
    j = g / (1.0 - t * t) * math.tanh(0.881925 * g / t)
    return xi0 * ell / (ell * j + xi0)


def field_profile(t, thickness, ell, xi0, lam, nn=4.0, npts=262144):
    xp = xi_p(xi0, ell, t)
    lam_t = lam / math.sqrt(1.0 - t ** nn)
    alpha = (xp / lam_t) ** 2 * xp / xi0
    x = 0.02 * np.arange(1, npts, dtype=float)
    k = 1.5 * ((1.0 + x * x) * np.arctan(x) - x) / x ** 3
    q = np.zeros(npts)
    q[1:] = x / (x * x + alpha * k)
    b = np.fft.fft(q).imag
    s = int(np.argmax(np.abs(b[: npts // 2])))
    b = b / b[s]
    dz = xp * 2.0 * math.pi / npts / 0.02
    end = npts // 2 + s + 2
    if thickness < npts / 2.0 * dz:
        m = int(thickness / dz)
        film = np.zeros(npts)
        i = np.arange(s, m + s)
        film[i] = (b[i] + b[m - i + 2 * s]) / (1.0 + b[m + s])
        b = film
        end = m + s
    return b, s, dz, npts, end


SMOOTH = False


def field_at(prof, x):
    b, s, dz, npts, end = prof
    if x <= 0.0:
        return 1.0
    if x > dz * npts / 2.0:
        return 0.0
    if not SMOOTH:
        return b[int(x / dz) + s]
    if int(x / dz) + s >= end:
        return 0.0
    u = x / dz - 0.5
    if u <= 0.0:
        return b[s]
    k = s + math.floor(u)
    f = u - math.floor(u)
    if k + 1 >= end:
        return b[end - 1]

    def slope(i):
        if i == s:
            return 0.0
        if i + 1 >= end:
            return b[i] - b[i - 1]
        return 0.5 * (b[i + 1] - b[i - 1])

    # Hermite basis on [0, 1]
    h00, h10, h01, h11 = 2 * f**3 - 3 * f**2 + 1, f**3 - 2 * f**2 + f, -2 * f**3 + 3 * f**2, f**3 - f**2
    return h00 * b[k] + h10 * slope(k) + h01 * b[k + 1] + h11 * slope(k + 1)


def read_profile(energy_ev):
    z, n = [], []
    for line in open(FOLDER + str(energy_ev) + ".rge"):
        line = line.strip()
        if line and line[0].isdigit():
            a, c = line.split()
            z.append(float(a) / 10.0)
            n.append(float(c))
    norm, prev = 0.0, 0.0
    for zi, ni in zip(z, n):
        norm += ni * (zi - prev)
        prev = zi
    return z, [v / norm for v in n]


def density(prof, zz):
    z, n = prof
    if zz < 0.0 or zz > z[-1]:
        return 0.0
    for i, zi in enumerate(z):
        if zz <= zi:
            if i == 0:
                return n[0] * zz / (z[1] - z[0])
            return n[i - 1] + (n[i] - n[i - 1]) * (zz - z[i - 1]) / (z[i] - z[i - 1])
    return 0.0


def polarisation(rge, fprof, bext, dead, phase_deg, t):
    if t <= 0.0:
        return 1.0
    pol, z, quiet = 0.0, 0.0, 0
    while True:
        f = 1.0 if z < dead else field_at(fprof, z - dead)
        term = density(rge, z) * math.cos(GAMMA * bext * f * t + phase_deg * 0.0174532925199)
        pol += term
        z += 1.0
        quiet = quiet + 1 if abs(term) < 1e-9 else 0
        if quiet > 10:
            return pol


def main():
    global SMOOTH
    rge = read_profile(22000)
    temp, thick, ell, xi0 = 0.8683, 5000.0, 12000.0, 94.0
    points = [(52.5, 47.11, 0.0004, 42.0), (52.5, 47.11, 0.0004, 196.4), (80.0, 100.0, 7.3, -20.0), (52.5, 47.11, 25.0, 42.0)]
    times = [0.0, 0.013, 0.5, 2.345, 7.77]
    prof = {}
    for smooth in (False, True):
        SMOOTH = smooth
        print("## smooth" if smooth else "## library")
        for lam, b, d, ph in points:
            if lam not in prof:
                prof[lam] = field_profile(temp, thick, ell, xi0, lam)
            print(f"# lambda {lam} B {b} d {d} phase {ph}")
            print("  {" + ", ".join(f"{polarisation(rge, prof[lam], b, d, ph, t):.15g}" for t in times) + "}")
        p = prof[52.5]
        print("# field: shift", p[1], "dz", repr(p[2]), "b(1 nm)", repr(field_at(p, 1.0)), "b(100 nm)",
              repr(field_at(p, 100.0)), "b(4999 nm)", repr(field_at(p, 4999.0)), "b(0.03 nm)", repr(field_at(p, 0.03)))
    # derivatives of the smooth sum at (52.5, 47.11, 3.0, 42.0), t = 2.345
    lam, b, d, ph, t = 52.5, 47.11, 3.0, 42.0, 2.345
    p = prof[52.5]
    h = 1e-5 * lam
    up, dn = field_profile(temp, thick, ell, xi0, lam + h), field_profile(temp, thick, ell, xi0, lam - h)
    dl = (polarisation(rge, up, b, d, ph, t) - polarisation(rge, dn, b, d, ph, t)) / (2 * h)
    hb = 1e-5 * b
    db = (polarisation(rge, p, b + hb, d, ph, t) - polarisation(rge, p, b - hb, d, ph, t)) / (2 * hb)
    hd = 1e-4
    dd = (polarisation(rge, p, b, d + hd, ph, t) - polarisation(rge, p, b, d - hd, ph, t)) / (2 * hd)
    print(f"# smooth d/dlambda {dl:.10g} d/dB {db:.10g} d/dd {dd:.10g}")
    # the largest difference of the two readings over t in [0, 10] us at test-nonlocal's point
    worst = 0.0
    for t in np.linspace(0.0, 10.0, 201):
        SMOOTH = False
        a = polarisation(rge, p, 47.11, 0.0004, 42.0, t)
        SMOOTH = True
        worst = max(worst, abs(a - polarisation(rge, p, 47.11, 0.0004, 42.0, t)))
    print(f"# largest |library - smooth| over 0..10 us at lambda 52.5, d 0.0004: {worst:.3g}")


if __name__ == "__main__":
    main()
