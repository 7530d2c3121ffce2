#!/usr/bin/env python3
"""Reference values of libCalcMeanFieldsLEM's TMeanFieldsForScSingleLayer and
TMeanFieldsForScHalfSpace for
tests/musr/mean_fields_test.cpp, computed from the rge files directly in pure Python with
mpmath at 30 digits (run from the repository root:
python3 tests/musr/reference/mean_fields_reference.py).

The library's rules, written out independently here:
- a profile is read as (depth [A], particles) pairs after the word PARTICLES; the last pair is
  read twice (its end-of-file loop), then zero rows follow in steps of (z_2 - z_0)/2 up to 2100 A;
- the layers: z < 10 d (weight w1), 10 d <= z < 10 (d + t) (w2), z >= 10 (d + t) (w3);
- B(z) (z in nm) is B0 outside [d, d + t] and
  B0 [e^((d + t - z)/lambda) + e^((z - d)/lambda)] / (1 + e^(t/lambda)) inside;
- the half-space (no weights): B0 above the dead layer d, B0 e^((d - z)/lambda) below it;
- the mean at a profile energy is sum w n B / sum w n over the rows, at 0.1 z;
- between profile energies the means of the two neighbours are interpolated linearly in E,
  outside the first and last profile energies the end means are taken.
"""
import mpmath as mp

mp.mp.dps = 30
FOLDER = "tests/musr/musrfit/BMWlibs/profiles/TestProfile-"
LABELS = ["02_0", "05_0", "07_5", "10_0", "12_0", "16_0", "18_0", "20_0", "22_0", "24_0"]
ENERGIES = [2.0, 5.0, 7.5, 10.0, 12.0, 16.0, 18.0, 20.0, 22.0, 24.0]


def profile(label):
    words = open(FOLDER + label + ".rge").read().split()
    rows = [float(w) for w in words[words.index("PARTICLES") + 1:]]
    z, n = rows[0::2], rows[1::2]
    z.append(z[-1])
    n.append(n[-1])
    dz = 0.5 * (z[2] - z[0])
    zz = z[-1]
    while zz < 2100.0:
        zz += dz
        z.append(zz)
        n.append(0.0)
    return z, n


PROFILES = [profile(l) for l in LABELS]


def field(zz, b0, d, t, lam):
    zz, b0, d, t, lam = (mp.mpf(v) for v in (zz, b0, d, t, lam))
    if zz < 0 or zz < d or zz > d + t:
        return b0
    return b0 * (mp.exp((d + t - zz) / lam) + mp.exp((zz - d) / lam)) / (1 + mp.exp(t / lam))


def mean_at(k, b0, d, t, lam, w):
    z, n = PROFILES[k]
    num, den = mp.mpf(0), mp.mpf(0)
    for zi, ni in zip(z, n):
        wi = w[0] if zi < 10 * d else (w[1] if zi < 10 * (d + t) else w[2])
        num += wi * ni * field(mp.mpf(zi) / 10, b0, d, t, lam)
        den += wi * ni
    return num / den


def half_space_at(k, b0, d, lam):
    z, n = PROFILES[k]
    b0, d, lam = mp.mpf(b0), mp.mpf(d), mp.mpf(lam)
    num, den = mp.mpf(0), mp.mpf(0)
    for zi, ni in zip(z, n):
        zz = mp.mpf(zi) / 10
        num += ni * (b0 if zz < d else b0 * mp.exp((d - zz) / lam))
        den += ni
    return num / den


def by_energy(e, at):
    if e <= ENERGIES[0]:
        return at(0)
    if e >= ENERGIES[-1]:
        return at(len(ENERGIES) - 1)
    k = next(i for i, x in enumerate(ENERGIES) if e < x)
    if e == ENERGIES[k - 1]:
        return at(k - 1)
    b1, b2 = at(k - 1), at(k)
    return b1 + (b2 - b1) * (e - ENERGIES[k - 1]) / (ENERGIES[k] - ENERGIES[k - 1])


def mean_field(e, b0, d, t, lam, w):
    return by_energy(e, lambda k: mean_at(k, b0, d, t, lam, w))


def db_points():
    e, y, err = [], [], []
    for line in open("tests/musr/musrfit/BMWlibs/data/Meissner-1L_160nm_TF95G_h12.db"):
        if line.startswith("dataE ="):
            e.append(float(line.split("=")[1].split(",")[0]))
        if line.startswith("field ="):
            p = line.split("=")[1].split(",")
            y.append(float(p[0]))
            err.append((float(p[1]), float(p[2])))
    return e, y, err


if __name__ == "__main__":
    # The example's fitted point (its FITPARAMETER block) and the χ² it gives.
    P = (95.0, 3.71915, 157.461, 305.142)
    W = (1.0, 1.0, 1.0)
    e, y, err = db_points()
    for rule, pick in (("positive error", lambda a: a[0]), ("mean error", lambda a: 0.5 * (a[0] + a[1]))):
        chi2 = sum(((yi - mean_field(ei, *P, W)) / pick(er)) ** 2 for ei, y_, er in [(a, b, c) for a, b, c in zip(e, y, err)] for yi in [y_])
        print("chi2 with the %s: %s" % (rule, mp.nstr(chi2, 12)))
    print("profile energies, means at the example's point:")
    for k, en in enumerate(ENERGIES):
        print("  %5.1f keV  %s" % (en, mp.nstr(mean_at(k, *P, W), 17)))
    print("between and beyond, unequal weights (0.3, 0.9, 0.6), B0 100, d 12, t 80, lambda 60:")
    for en in (1.0, 6.25, 14.1, 23.0, 30.0):
        print("  %5.2f keV  %s" % (en, mp.nstr(mean_field(en, 100.0, 12.0, 80.0, 60.0, (0.3, 0.9, 0.6)), 17)))
    print("half-space, B0 100, d 12, lambda 60:")
    for en in (1.0, 5.0, 6.25, 14.1, 24.0, 30.0):
        print("  %5.2f keV  %s" % (en, mp.nstr(by_energy(en, lambda k: half_space_at(k, 100.0, 12.0, 60.0)), 17)))
