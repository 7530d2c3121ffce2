#!/usr/bin/env python3
"""Could tomoraster reproduce the stored STATISTICs of musrfit's nine DepthProfiles examples by
evaluating PDepthProfile as musrfit does, a staircase in the fitted depths? (docs/musr.md,
"PDepthProfile"; pure Python, run from the repository root, about 25 s:
python3 tests/musr/reference/depth_profile_staircase_study.py)

musrfit's rule: n_j = N_j / sum_i N_i (z_i - z_{i-1}), C_j = sum_{i<=j} n_i, C read at the first
tabulated depth >= x; the profile is the first whose energy lies within 900 eV of E; f(E) =
sum_k f_k (C(x_k) - C(x_{k-1})) with the first layer from C_0 and the last to the last depth.
For each file it prints chi2 with the staircase (1) at the parameters musrfit saved, (2) with the
fractions (linear parameters) re-fitted at musrfit's depths, which is where a gradient minimiser
started from the saved values ends (the staircase's depth gradient is 0), and (3) at the staircase's
minimum over the depths (every plateau of both depths up to 300 nm, fractions fitted linearly).
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from depth_profile_reference import cumulative, staircase  # noqa: E402 (the same rule, one place)

ROOT = "tests/musr/musrfit/DepthProfiles"


def profiles(folder):
    x = open(os.path.join(folder, "depth_profile_startup.xml")).read()
    path = re.search(r"<data_path>(.*?)</data_path>", x).group(1)
    pre = re.search(r"<rge_fln_pre>(.*?)</rge_fln_pre>", x).group(1)
    lo, hi, step = map(int, re.search(r'<energy_vect start="(\d+)" stop="(\d+)" step="(\d+)"', x).groups())
    out = {}
    for e in range(lo, hi + 1, step):
        z, a, seen = [], [], False
        for line in open(os.path.join(folder, path, "%s%d.rge" % (pre, e))):
            s = line.split()
            if s and s[0] == "DEPTH":
                seen = True
            elif seen and len(s) >= 2:
                z.append(float(s[0]) / 10.0)  # Angstrom -> nm
                a.append(float(s[1]))
        out[e] = (z, cumulative(z, a))
    return out


def load(msr):
    t = open(msr).read()
    n = len(re.search(r"PDepthProfile((\s+\d+)+)", t).group(1).split())
    block = t.split("FITPARAMETER")[1].split("THEORY")[0]
    values = [float(l.split()[2]) for l in block.split("\n") if re.match(r"^\s+\d+\s+\S+\s+[-\d.]", l)][:n]
    run = re.search(r"^RUN (\S+)", t, re.M).group(1)
    xcol, ycol = re.search(r"^xy-data\s+(\S+)\s+(\S+)", t, re.M).groups()
    lo, hi = map(float, re.search(r"^fit\s+(\S+)\s+(\S+)", t, re.M).groups())
    stored = float(re.search(r"chisq/NDF = ([\d.]+)", t).group(1)) * int(re.search(r"NDF = (\d+)", t).group(1))
    lines = [l for l in open(os.path.join(os.path.dirname(msr), run + ".dat")).read().split("\n") if l.strip()]
    names = lines[0].split()
    xi, yi = names.index(xcol), names.index(ycol)  # the error is the column after y
    rows = [list(map(float, l.split())) for l in lines[1:]]
    return values, [(r[xi], r[yi], r[yi + 1]) for r in rows if lo <= r[xi] <= hi], stored


def design(points, prof, depths, nf):
    rows = []
    for e_kev, y, err in points:
        p = next((v for en, v in prof.items() if abs(en - e_kev * 1000.0) * 0.001 < 0.9), None)
        if p is None:
            rows.append(([0.0] * nf, y, err))
            continue
        z, cfd = p
        edges = [cfd[0]] + [staircase(z, cfd, d) for d in depths] + [cfd[-1]]
        rows.append(([edges[k + 1] - edges[k] for k in range(nf)], y, err))
    return rows


def chi2(rows, f):
    return sum((y - sum(fk * ak for fk, ak in zip(f, a))) ** 2 / e ** 2 for a, y, e in rows)


def fit_fractions(rows, nf):
    """Weighted linear least squares for the fractions (Gauss-Jordan on the normal equations)."""
    m = [[sum(a[i] * a[j] / e ** 2 for a, y, e in rows) for j in range(nf)] + [sum(a[i] * y / e ** 2 for a, y, e in rows)]
         for i in range(nf)]
    for i in range(nf):
        p = max(range(i, nf), key=lambda r: abs(m[r][i]))
        m[i], m[p] = m[p], m[i]
        if abs(m[i][i]) < 1e-300:
            return None
        for r in range(nf):
            if r != i:
                g = m[r][i] / m[i][i]
                m[r] = [m[r][c] - g * m[i][c] for c in range(nf + 1)]
    return [m[i][nf] / m[i][i] for i in range(nf)]


if __name__ == "__main__":
    for msr in sorted(glob.glob(ROOT + "/*/*.msr")):
        values, points, stored = load(msr)
        prof = profiles(os.path.dirname(msr))
        nf = (len(values) + 1) // 2
        fractions, depths = values[:nf], values[nf:]
        saved = chi2(design(points, prof, depths, nf), fractions)
        rows = design(points, prof, depths, nf)
        refit = chi2(rows, fit_fractions(rows, nf))
        plateaus = [z for z in max((v[0] for v in prof.values()), key=len) if z <= 300.0]
        best = (float("inf"), None)
        pairs = [(a,) for a in plateaus] if len(depths) == 1 else [(a, b) for i, a in enumerate(plateaus) for b in plateaus[i:]]
        for d in pairs:
            rows = design(points, prof, d, nf)
            f = fit_fractions(rows, nf)
            if f is not None and chi2(rows, f) < best[0]:
                best = (chi2(rows, f), d)
        print("%-58s stored %8.3f  at musrfit's parameters %8.3f  fractions re-fitted %8.3f  staircase minimum %8.3f at %s"
              % (os.path.relpath(msr, ROOT), stored, saved, refit, best[0], " ".join("%.1f" % d for d in best[1])))
