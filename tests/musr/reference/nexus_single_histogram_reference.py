#!/usr/bin/env python3
"""Reference values of musrfit's single-histogram max-likelihood (PRunSingleHisto) on
test-histo-NeXus2.msr for tests/musr/conformance_test.cpp, independent of tomoraster: the NeXus
file read with h5py (pip install h5py numpy), musrfit's steps in plain Python (run from the
repository root: python3 tests/musr/reference/nexus_single_histogram_reference.py).

The msr: histograms 1-16 and 17-32 (t0 16 from time_zero_bin), data 40 1500, fit 0.2 14 us,
packing 1, SCALE_N0_BKG (N0 per ns), theory asym exp(-(rate t)^beta) cos(phase + 2 pi gamma B t),
the second RUN's phase + relPhase. musrfit's steps: t_k = dt((fgb - 0.5) + 1/2 - t0) + k dt,
fit bins ceil/floor of the range in those times, maxLH = 2 sum[(th - c) + c ln(c/th)] over the
counts (th = 16 ns * (N0 e^(-t/tau) (1 + A) + bkg)). The statistic is printed with musrfit's
muon lifetime of today (2.1969811 us, since January 2022) and of the build that wrote the
file's STATISTIC (2.197019 us).
"""
import math

FILE = "tests/musr/musrfit/data/EMU00005989_v2.nxs"
GAMMA = 0.01355388094  # MHz/G
SAVED = dict(phase=2.81, field=70.998, asym=0.1700, rate=0.1523, beta=1.255, n_l=2410.44, n_r=2121.43, rel=182.29)


def groups():
    import h5py  # here: nexus_v1_statistic_study.py imports fit_bins without it

    with h5py.File(FILE, "r") as f:
        counts = f["/raw_data_1/detector_1/counts"][()]
        t0 = f["/raw_data_1/instrument/detector_1/time_zero_bin"][()]
        width = float(f["/raw_data_1/detector_1/histogram_resolution"][0])
    assert set(t0.tolist()) == {16} and width == 16.0  # one t0 for all: no shifts when grouping
    return [int(x) for x in counts[0:16].sum(axis=0)], [int(x) for x in counts[16:32].sum(axis=0)]


def fit_bins(t0, fgb, lgb, fit, dt=0.016):
    """PRunSingleHisto's packing-1 grid: (raw bin, time) of each fitted bin."""
    start = dt * ((fgb - 0.5) + 0.5 - t0)
    first = max(0, math.ceil((fit[0] - start) / dt))
    last = min(lgb - fgb, math.floor((fit[1] - start) / dt) + 1)
    return [(fgb + k, start + k * dt) for k in range(first, last)]


def max_likelihood(c, n0, phase, p, tau, t0=16, fgb=40, lgb=1500, fit=(0.2, 14.0)):
    bins = fit_bins(t0, fgb, lgb, fit)
    s = 0.0
    for i, t in bins:
        a = p["asym"] * math.exp(-((p["rate"] * t) ** p["beta"])) * math.cos(phase * math.pi / 180 + 2 * math.pi * GAMMA * p["field"] * t)
        th = 16.0 * n0 * math.exp(-t / tau) * (1 + a)
        d = c[i]
        s += (th - d) + (d * math.log(d / th) if d > 1e-9 else 0.0)
    return 2 * s, len(bins)


if __name__ == "__main__":
    left, right = groups()
    for tau in (2.1969811, 2.197019):
        a, na = max_likelihood(left, SAVED["n_l"], SAVED["phase"], SAVED, tau)
        b, nb = max_likelihood(right, SAVED["n_r"], SAVED["phase"] + SAVED["rel"], SAVED, tau)
        print("tau %.7f us: maxLH at musrfit's saved parameters %r (%d + %d bins)" % (tau, a + b, na, nb))
