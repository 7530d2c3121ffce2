#!/usr/bin/env python3
"""Reference values of musrfit's asymmetry fit (PRunAsymmetry) on three of its examples, for
tests/musr/conventions_test.cpp and the conformance table of docs/musr.md, independent of
tomoraster: its own readers of the MUD and PSI-BIN files and musrfit's preparation steps in plain
Python (run from the repository root: python3 tests/musr/reference/asymmetry_reference.py; the
fits take about a minute).

musrfit's steps: background windows cut to whole beam periods (PSI 0.01975 us, TRIUMF 0.04337 us)
counted in packed bins; each raw bin's error sqrt(count + errBkg^2); the histogram whose data start
lies further from its t0 sets the other's range; packs of p bins emitted before bin i when
(i - start) % p == 0 and i != start, the running sums NOT reset between the forward and the
backward histogram (CARRY: the forward range's unemitted last pack goes into the backward's
first); A = (F-B)/(F+B), error 2/(F+B)^2 sqrt(B^2 eF^2 + F^2 eB^2); time of pack k
dt((start - 0.5) + p/2 - t0_F) + p k dt; fit bins ceil/floor of the fit range in those times.

Two background rules: "current" (musrfit since 2014: inclusive mean over [start, end], errBkg =
sqrt(sum)/N, error 1 for an empty bin) and "2011-2013" (sum over [start, end) divided by
end - start + 1, the backward errBkg divided by the forward window's N, empty bins keep errBkg).
"""
import math
import struct

DIR = "tests/musr/musrfit/"
GAMMA = 0.01355388094  # MHz/G


def read_mud(path):
    """Histograms 1.. of a MUD file: sections {size, id, instance}, groups followed by members."""
    b = open(path, "rb").read()
    headers, data = {}, {}

    def walk(pos, end):
        while pos < end:
            size, sid, inst = struct.unpack_from("<III", b, pos)
            body, stop = pos + 12, pos + size
            if sid == 0x01010004:  # end of file
                return
            if sid == 0x01010003:  # group: its members follow
                members = struct.unpack_from("<I", b, body + 4)[0]
                walk(stop, stop + members)
                pos = stop + members
                continue
            if sid == 0x01020002:  # histogram header
                f = struct.unpack_from("<12I", b, body)
                headers[inst] = {"bins": f[2], "bytes": f[3], "fs": f[4]}
            elif sid == 0x01020003:  # histogram data
                n = struct.unpack_from("<I", b, body)[0]
                data[inst] = b[body + 4:body + 4 + n]
            pos = stop

    walk(0, len(b))
    hists = []
    for k in sorted(headers):
        h, d, out = headers[k], data[k], []
        if h["bytes"]:
            w = h["bytes"]
            out = [int.from_bytes(d[i * w:(i + 1) * w], "little") for i in range(h["bins"])]
        else:  # runs of {uint16 count, uint8 width, count * width bytes}; width 0: zeros
            at = 0
            while len(out) < h["bins"]:
                count, width = d[at] | d[at + 1] << 8, d[at + 2]
                at += 3
                for i in range(count):
                    out.append(int.from_bytes(d[at + i * width:at + (i + 1) * width], "little") if width else 0)
                at += count * width
        assert h["fs"] == 781250  # femtoseconds per bin in the example file
        hists.append(out)
    return hists, 0.78125e-3


def read_psi_bin(path):
    """Histograms of a PSI-BIN file (1024-byte header, int32 records) and the bin width in us."""
    b = open(path, "rb").read()
    g = lambda fmt, o: struct.unpack_from(fmt, b, o)[0]
    bins, nh, lendaf, kdafhi = g("<h", 28), g("<h", 30), g("<h", 130), g("<h", 132)
    width = g("<f", 1012)
    if width <= 0:  # from the TDC resolution code
        width = 0.125 * 625e-6 * 2 ** g("<h", 2)
    stride = kdafhi * lendaf
    return [list(struct.unpack_from("<%di" % bins, b, 1024 + 4 * h * stride)) for h in range(nh)], width


def prepare(run, rule, carry):
    hists, dt = run["read"](DIR + run["file"])
    p, period = run["packing"], run["period"]
    t0 = run["t0"]
    hist = [[float(x) for x in hists[run["forward"] - 1]], [float(x) for x in hists[run["backward"] - 1]]]
    windows = [list(run["background"][0:2]), list(run["background"][2:4])]
    for w in windows:
        cycles = int((w[1] - w[0]) * dt * p / period)
        end = w[0] + int(cycles * period / (dt * p))
        w[1] = end if end != w[0] else w[1]
    values, variances = [], []
    for k, (h, (s, e)) in enumerate(zip(hist, windows)):
        if rule == "current":
            total, n = sum(h[s:e + 1]), e - s + 1
            mean, err = total / n, math.sqrt(total) / n
            variances.append([x + err * err if x > 0 else 1.0 for x in h])
        else:
            total, n = sum(h[s:e]), e - s + 1
            mean, err = total / n, math.sqrt(total) / (windows[0][1] - windows[0][0] + 1)
            variances.append([x + err * err for x in h])
        values.append([x - mean for x in h])
    start, end = [run["data"][0], run["data"][2]], [run["data"][1], run["data"][3]]
    if abs(start[0] - t0[0]) > abs(start[1] - t0[1]):
        start[1], end[1] = int(t0[1] + start[0] - t0[0]), int(t0[1] + end[0] - t0[0])
    if abs(start[0] - t0[0]) < abs(start[1] - t0[1]):
        start[0], end[0] = int(t0[0] + start[1] - t0[1]), int(t0[0] + end[1] - t0[1])
    sums, packed = [0.0, 0.0], []
    for k in range(2):
        out = []
        if not carry:
            sums = [0.0, 0.0]
        for i in range(start[k], end[k]):
            if (i - start[k]) % p == 0 and i != start[k]:
                m = sums[0] / p
                out.append((m, 1.0 if m == 0 else math.sqrt(sums[1]) / p))
                sums = [0.0, 0.0]
            sums[0] += values[k][i]
            sums[1] += variances[k][i]
        packed.append(out)
    asym = []
    for (f, ef), (b, eb) in zip(*packed):
        s = f + b
        asym.append(((f - b) / s, 2 / (s * s) * math.sqrt(b * b * ef * ef + eb * eb * f * f)))
    t_first, step = dt * ((start[0] - 0.5) + p / 2 - t0[0]), dt * p
    first = max(0, math.ceil((run["fit"][0] - t_first) / step))
    last = min(len(asym), math.floor((run["fit"][1] - t_first) / step) + 1)
    return [(t_first + k * step, asym[k][0], asym[k][1]) for k in range(first, last)]


def chi2(bins, model, q):
    return sum((a - model(q, t)) ** 2 / e ** 2 for t, a, e in bins)


def with_alpha(alpha, f):
    return (f * (alpha + 1) - (alpha - 1)) / ((alpha + 1) - f * (alpha - 1))


def zf_mag_exp(q, t):  # libZFRelaxation's ZFMagExp with fraction 2/3, then asymmetry and alpha
    w = 2 * math.pi * GAMMA * q[0]
    g = 0.666667 * (math.cos(w * t) - q[1] / w * math.sin(w * t)) * math.exp(-q[1] * t) + (1 - 0.666667) * math.exp(-q[2] * t)
    return with_alpha(q[4], q[3] * g)


RUNS = {
    "test-asy-MUD.msr": dict(read=read_mud, file="data/000100.msr", forward=1, backward=2, t0=[432.0, 431.0],
                             background=[79, 391, 80, 409], data=[438, 12785, 436, 12787], fit=(0, 8), packing=100,
                             period=0.04337, model=lambda q, t: q[0] * math.exp(-((q[1] * t) ** q[2])),
                             saved=[0.17503, 0.1649, 0.892], steps=[0.001, 0.002, 0.02], stored="134.0 (2017), 133.92904 (2011)"),
    "test-asy-PSI-BIN.msr": dict(read=read_psi_bin, file="data/deltat_pta_gpd_0423.bin", forward=2, backward=1,
                                 t0=[202.0, 162.0], background=[61, 184, 57, 145], data=[207, 7994, 167, 8009], fit=(0, 8),
                                 packing=18, period=0.01975,
                                 model=lambda q, t: with_alpha(0.954734, q[0] * math.exp(-q[3] * t) *
                                                               math.cos(q[1] * math.pi / 180 + 2 * math.pi * GAMMA * q[2] * t)),
                                 saved=[0.2624, -0.10, 97.912, 0.3164], steps=[0.001, 0.3, 0.05, 0.004], stored="554.2 (2012)"),
    "BMWlibs/test-libZFRelaxation-PSI-BIN.msr": dict(read=read_psi_bin, file="BMWlibs/data/deltat_pta_gps_4255.bin", forward=2,
                                                      backward=1, t0=[125.0, 128.0], background=[45, 113, 40, 117],
                                                      data=[128, 8097, 131, 8112], fit=(0, 8), packing=30, period=0.01975,
                                                      model=zf_mag_exp, saved=[171.20, 1.303, 0.099, 0.1429, 0.8209],
                                                      steps=[0.5, 0.06, 0.012, 0.004, 0.003], stored="470.01395 (2011)"),
}


def minimise(f, q0, steps):
    """Nelder-Mead from the saved parameters (enough for these smooth 3-5 parameter minima)."""
    n = len(q0)
    pts = [list(q0)] + [[q0[j] + (steps[j] if j == i else 0) for j in range(n)] for i in range(n)]
    val = [f(q) for q in pts]
    for _ in range(5000):
        order = sorted(range(n + 1), key=lambda i: val[i])
        pts, val = [pts[i] for i in order], [val[i] for i in order]
        if val[-1] - val[0] < 1e-10:
            break
        c = [sum(pts[i][j] for i in range(n)) / n for j in range(n)]
        r = [2 * c[j] - pts[-1][j] for j in range(n)]
        fr = f(r)
        if fr < val[0]:
            e = [3 * c[j] - 2 * pts[-1][j] for j in range(n)]
            fe = f(e)
            pts[-1], val[-1] = (e, fe) if fe < fr else (r, fr)
        elif fr < val[-2]:
            pts[-1], val[-1] = r, fr
        else:
            k = [(c[j] + pts[-1][j]) / 2 for j in range(n)]
            fk = f(k)
            if fk < val[-1]:
                pts[-1], val[-1] = k, fk
            else:
                for i in range(1, n + 1):
                    pts[i] = [(pts[0][j] + pts[i][j]) / 2 for j in range(n)]
                    val[i] = f(pts[i])
    i = min(range(n + 1), key=lambda i: val[i])
    return pts[i], val[i]


if __name__ == "__main__":
    for name, run in RUNS.items():
        print(name, "stored STATISTIC", run["stored"])
        for rule, carry in (("current", True), ("current", False), ("2011-2013", True)):
            bins = prepare(run, rule, carry)
            f = lambda q: chi2(bins, run["model"], q)
            q, v = minimise(f, run["saved"], run["steps"])
            print("  %-9s %-8s bins %d  first pack A %.12g error %.12g  chi2 at the saved parameters %.6f  minimum %.3f at %s" %
                  (rule, "carry" if carry else "no carry", len(bins), bins[0][1], bins[0][2], f(run["saved"]), v,
                   " ".join("%.5g" % x for x in q)))
