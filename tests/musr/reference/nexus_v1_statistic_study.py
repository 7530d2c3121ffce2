#!/usr/bin/env python3
"""Study of test-histo-NeXus.msr's stored STATISTIC (chisq = 3272.6, NDF = 2469, written by a 2015
musrfit), independent of tomoraster: the NeXus definition-1 (HDF4) file read with pyhdf
(pip install pyhdf numpy), PRunSingleHisto's steps in plain Python (run from the repository
root: python3 tests/musr/reference/nexus_v1_statistic_study.py).

The msr: histograms 1-16 and 17-32 (t0 40 from the counts' t0_bin), data 40 1500, fit 0.2 20 us,
packing 1, SCALE_N0_BKG (counts per ns: 16 ns bins), backgrounds fixed at 0, theory
asym exp(-rate t) cos(phase + 2 pi gamma B t), the second RUN's phase + relPhase. Grid and fit
bins as musrfit: t_k = dt((fgb - 0.5) + 1/2 - t0) + k dt, ceil/floor of the range.

musrfit's PRunSingleHisto gives a bin of value y = counts/16 (per ns) the error sqrt(y), an empty
bin the error 1/16, and multiplies the sum by 16: a filled bin adds (c - m)^2/c in counts, an
empty one 16 m^2, as if its count had variance 1/16 (the right bin group has one empty bin, at
19.9 us, where m = 3.7 counts). At the parameters musrfit saved this gives 3273.57 with today's
muon lifetime and 3272.61 with 2.197019 us, the lifetime of the build that wrote the STATISTIC:
the stored 3272.6. With variance 1 for the empty bin (sigma^2 = counts, 1 for 0) it would be
3066.86 (tomoraster's former rule).
"""
import math

import os
import sys

import numpy as np
from pyhdf.SD import SD

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nexus_single_histogram_reference import fit_bins  # noqa: E402  (the same grid as the NeXus 2 reference)

FILE = "tests/musr/musrfit/data/32482.NXS"
GAMMA = 0.01355388094  # MHz/G
SAVED = dict(phase=11.45, field=20.179, asym=0.1877, rate=0.1257, n_l=2863.4, n_r=2024.3, rel=172.25)


def groups():
    f = SD(FILE)
    counts = np.array(f.select("counts").get(), dtype=float)
    assert f.select("counts").attributes()["t0_bin"] == 40
    return counts[0:16].sum(axis=0), counts[16:32].sum(axis=0)


def chi2(c, n0, phase, p, tau, empty_variance, t0=40, fgb=40, lgb=1500, fit=(0.2, 20.0)):
    """chi^2 in counts; empty_variance: the variance an empty bin's count gets."""
    bins = fit_bins(t0, fgb, lgb, fit)
    th = [16.0 * n0 * math.exp(-t / tau) * (1 + p["asym"] * math.exp(-p["rate"] * t) * math.cos(phase * math.pi / 180 + 2 * math.pi * GAMMA * p["field"] * t))
          for _, t in bins]
    var = [c[i] if c[i] > 0 else empty_variance for i, _ in bins]
    return sum((c[i] - m) ** 2 / v for (i, _), m, v in zip(bins, th, var)), len(bins)


if __name__ == "__main__":
    left, right = groups()
    for tau in (2.1969811, 2.197019):
        for name, empty in (("musrfit's 1/16", 1.0 / 16.0), ("1", 1.0)):
            a, na = chi2(left, SAVED["n_l"], SAVED["phase"], SAVED, tau, empty)
            b, nb = chi2(right, SAVED["n_r"], SAVED["phase"] + SAVED["rel"], SAVED, tau, empty)
            print("tau %.7f us, an empty bin's variance %s: chi2 %.6f (%d + %d bins)" % (tau, name, a + b, na, nb))
