// musrfit's conventions for raw bins, each against a hand computation of musrfit's rule
// (PRunAsymmetry / PRunSingleHisto): the background window cut to beam periods in packed
// bins, its inclusive mean and Σ/N² variance, the default data range, t0 fallbacks, the
// f1 b1 f2 b2 t0 order of grouped asymmetry runs, the asymmetry packing's carried remainder,
// fractional t0, `alpha funX`, and the STATISTIC block read back.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "compute/core/error.hpp"
#include "compute/musr/fit_setup.hpp"
#include "compute/musr/raw_bins.hpp"

namespace tomo::musr {
namespace {

TEST(MusrConventions, BackgroundWindowIsCutToBeamPeriodsInPackedBins) {
  // test-asy-PSI-BIN's forward window 61..184 at Δt = 0.1953125 ns, packing 18: the window is
  // 123·18·Δt = 0.432421875 µs = 21 whole periods of 0.01975 µs (0.41475 µs), which are
  // ⌊0.41475 / (18·Δt)⌋ = ⌊117.97⌋ = 117 packed-bin widths: end = 61 + 117 = 178.
  const double dt = 0.0001953125;
  const BinRange w = trim_background_window({61, 184}, dt, 18, beam_period_us("PSI"));
  EXPECT_EQ(w.start, 61);
  EXPECT_EQ(w.end, 178);
  // Cutting on raw bins instead would give 61 + 101 − 1 = 161 (one period of 101.1 raw bins).
  // Unpacked: 123·Δt = 0.024 µs holds one period: end = 61 + ⌊0.01975/Δt⌋ = 61 + 101.
  EXPECT_EQ(trim_background_window({61, 184}, dt, 1, 0.01975).end, 162);
  // No whole period: the window is kept; no beam period (RAL, other institutes): kept.
  EXPECT_EQ(trim_background_window({10, 20}, dt, 1, 0.01975).end, 20);
  EXPECT_EQ(trim_background_window({61, 184}, dt, 18, beam_period_us("RAL")).end, 184);
  EXPECT_DOUBLE_EQ(beam_period_us("triumf"), 0.04337);
  // Start and end swapped first.
  EXPECT_EQ(trim_background_window({184, 61}, dt, 18, 0.01975).end, 178);
}

// musrfit wrote the backgrounds it estimated into test-asy-LF-BaB6.msr's RUN block in 2013
// ("background 15 146 13 148  # estimated bkg: 20.4846 / 4.8731", packing 5, PSI, Δt =
// 0.9765625 ns). The windows cut to beam periods in packed bins, 15..144 and 13..146, reproduce
// both numbers with that build's mean Σ[start, end)/(end − start + 1); the current rule's
// inclusive mean over the same windows (which we follow) is 20.6462 / 4.8955.
TEST(MusrConventions, BackgroundWindowAsMusrfitCutItForAnExample) {
  const PsiBinFile f =
      read_psi_bin(std::filesystem::path(TOMO_SOURCE_DIR) / "tests/musr/musrfit/data/deltat_tdc_dolly_1020.bin");
  auto window = [&](BinRange w) { return trim_background_window(w, f.bin_width_us, 5, beam_period_us("PSI")); };
  auto counts = [&](int hist) {
    const auto& h = f.histograms.at(hist - 1);
    return std::vector<double>(h.begin(), h.end());
  };
  const BinRange wf = window({15, 146}), wb = window({13, 148});
  EXPECT_EQ(wf.end, 144);
  EXPECT_EQ(wb.end, 146);
  EXPECT_NEAR(single_histogram_background(counts(2), wf), 20.4846, 5e-5);  // forward 2
  EXPECT_NEAR(single_histogram_background(counts(1), wb), 4.8731, 5e-5);   // backward 1
  EXPECT_NEAR(asymmetry_background(counts(2), wf).mean, 20.6462, 5e-5);
  EXPECT_NEAR(asymmetry_background(counts(1), wb).mean, 4.8955, 5e-5);
}

TEST(MusrConventions, BackgroundMeansAsMusrfit) {
  const std::vector<double> c{4, 6, 8, 10, 12, 100};
  // Asymmetry: inclusive mean over [1, 4] = 36/4 = 9, variance added to each bin Σ/N² = 36/16.
  const auto a = asymmetry_background(c, {1, 4});
  EXPECT_DOUBLE_EQ(a.mean, 9.0);
  EXPECT_DOUBLE_EQ(a.variance, 36.0 / 16.0);
  // Single histogram: Σ over [1, 4) = 24 divided by 4 − 1 + 1 = 4.
  EXPECT_DOUBLE_EQ(single_histogram_background(c, {1, 4}), 6.0);
  // No background given: [⌊0.1·t0⌋, ⌊0.6·t0⌋].
  const BinRange d = default_background_window(162.7);
  EXPECT_EQ(d.start, 16);
  EXPECT_EQ(d.end, 97);
}

TEST(MusrConventions, T0AndDataRangeFallbacks) {
  const std::vector<double> counts{1, 5, 9, 40, 40, 7};
  // The msr's entry; GLOBAL's fills what the RUN leaves (merged by the reader); −1 is unset.
  EXPECT_DOUBLE_EQ(resolve_t0({2.5, 3}, 1, 4, counts), 3.0);
  // Beyond the msr's list: the data file's t0 when > 0, else the (first) bin of maximum counts.
  EXPECT_DOUBLE_EQ(resolve_t0({2.5}, 1, 4, counts), 4.0);
  EXPECT_DOUBLE_EQ(resolve_t0({2.5}, 1, 0, counts), 3.0);
  // No data range: ⌊t0⌋ + ⌊10 ns/Δt⌋ (Δt = 0.1953125 ns: 51 bins) to the end of the histogram.
  const auto r = resolve_data_range(std::nullopt, std::nullopt, 162.7, 0.0001953125, 8000);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->start, 213);
  EXPECT_EQ(r->end, 8000);
  // An end past the histogram is clamped to size − 1; start and end swapped; a start past the
  // histogram refused.
  EXPECT_EQ(resolve_data_range(100, 9000, 0, 0.001, 8000)->end, 7999);
  EXPECT_EQ(resolve_data_range(500, 100, 0, 0.001, 8000)->start, 100);
  EXPECT_FALSE(resolve_data_range(8001, 9000, 0, 0.001, 8000));
}

PsiBinFile four_histograms() {
  // f1 = 100 everywhere, f2 = 50 from bin 9, b1 = 60 everywhere, b2 = 30 from bin 11.
  PsiBinFile f;
  f.bin_width_us = 0.001;
  auto step = [](double before, double after, int from) {
    std::vector<std::int32_t> v(40);
    for (int i = 0; i < 40; ++i) v[i] = static_cast<std::int32_t>(i >= from ? after : before);
    return v;
  };
  f.histograms = {step(100, 100, 0), step(60, 60, 0), step(0, 50, 9), step(0, 30, 11)};
  f.t0 = {0, 0, 0, 0};
  f.first_good = f.last_good = {0, 0, 0, 0};
  return f;
}

std::string asymmetry_msr(const std::string& run_extra, const std::string& params = " 1 alpha 1 0.01\n 2 A 0.2 0.01\n") {
  return "title\nFITPARAMETER\n" + params + "THEORY\nasymmetry 2\nRUN f X TEST PSI-BIN\nfittype 2\n" + run_extra +
         "COMMANDS\nMIGRAD\n";
}

TEST(MusrConventions, GroupedAsymmetryT0sAreForwardBackwardPairs) {
  // forward 1 3, backward 2 4, t0 5 7 9 11 = f1 b1 f2 b2: f2 shifts by 9 − 5 = 4, b2 by 11 − 7
  // = 4, so from bin 5 on F = 100 + 50 and from bin 7 on B = 60 + 30: A = 60/240 = 0.25.
  const auto f = four_histograms();
  const MsrFile m = parse_msr(asymmetry_msr("forward 1 3\nbackward 2 4\nbackgr.fix 0 0\nt0 5 7 9 11\ndata 6 26 8 28\n"), "a.msr");
  const auto s = prepare_fit(m, [&](const MsrRun&) { return f; });
  const auto& r = s.data.runs[0];
  ASSERT_EQ(r.y.size(), 20u);
  for (double y : r.y) EXPECT_DOUBLE_EQ(y, 0.25);
  EXPECT_NEAR(r.t[0], 0.001, 1e-15);  // Δt·(fgb − t0_f1)
}

TEST(MusrConventions, AsymmetryErrorsCarryTheEstimatedBackground) {
  // Forward: 10 counts in bins 0..4, 110 after; backward 4 and 64. Windows [0, 4] (institute
  // TEST: no beam period): means 10 and 4, Σ/N² = 50/25 = 2 and 20/25 = 0.8. Packing 2: the
  // packed means F = 100, B = 60, errors √(2·(110 + 2))/2 and √(2·(64 + 0.8))/2.
  PsiBinFile f;
  f.bin_width_us = 0.001;
  std::vector<std::int32_t> fw(40, 110), bw(40, 64);
  for (int i = 0; i < 5; ++i) fw[i] = 10, bw[i] = 4;
  f.histograms = {fw, bw};
  f.t0 = {5, 5};
  f.first_good = f.last_good = {0, 0};
  const MsrFile m = parse_msr(asymmetry_msr("forward 1\nbackward 2\nbackground 0 4 0 4\ndata 6 26 6 26\npacking 2\n"), "a.msr");
  const auto s = prepare_fit(m, [&](const MsrRun&) { return f; });
  const auto& r = s.data.runs[0];
  ASSERT_EQ(r.y.size(), 9u);  // (26 − 6)/2 packs, the last dropped as musrfit
  const double F = 100, B = 60, eF = std::sqrt(2 * 112.0) / 2, eB = std::sqrt(2 * 64.8) / 2;
  EXPECT_DOUBLE_EQ(r.y[1], 0.25);
  EXPECT_NEAR(r.sigma[1], 2.0 / ((F + B) * (F + B)) * std::sqrt(B * B * eF * eF + F * F * eB * eB), 1e-15);
  // The first backward pack also holds the forward's unemitted last pack (bins 24, 25: value
  // 2·100, variance 2·112), as musrfit's running sums carry over: B = (2·60 + 200)/2 = 160.
  const double B0 = 160, eB0 = std::sqrt(2 * 64.8 + 2 * 112.0) / 2;
  EXPECT_DOUBLE_EQ(r.y[0], (F - B0) / (F + B0));
  EXPECT_NEAR(r.sigma[0], 2.0 / ((F + B0) * (F + B0)) * std::sqrt(B0 * B0 * eF * eF + F * F * eB0 * eB0), 1e-15);
  EXPECT_EQ(s.runs[0].backgrounds, (std::vector<double>{10.0, 4.0}));
  // t0 5.5 (fractional) moves the asymmetry time axis by half a bin: Δt·(6 − 0.5 + 1 − 5.5).
  const MsrFile half = parse_msr(asymmetry_msr("forward 1\nbackward 2\nbackground 0 4 0 4\ndata 6 26 6 26\npacking 2\nt0 5.5 5.5\n"), "a.msr");
  EXPECT_NEAR(prepare_fit(half, [&](const MsrRun&) { return f; }).data.runs[0].t[0], 0.001, 1e-15);
}

TEST(MusrConventions, PackingCarriesTheForwardRemainderIntoTheBackward) {
  // Values 1..10 with variances 2·value, bins [1, 8) packed by 3: packs at i = 4, 7 hold bins
  // 1..3 and 4..6; bin 7 is left in the running sums and opens the next call's first pack.
  std::vector<double> v(10), var(10);
  for (int i = 0; i < 10; ++i) v[i] = i + 1, var[i] = 2 * (i + 1);
  PackCarry carry;
  const auto a = packed_means(v, var, 1, 8, 3, carry);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_DOUBLE_EQ(a[0].first, (2 + 3 + 4) / 3.0);
  EXPECT_DOUBLE_EQ(a[0].second, std::sqrt(2.0 * (2 + 3 + 4)) / 3);
  EXPECT_DOUBLE_EQ(carry.value, 8.0);
  EXPECT_DOUBLE_EQ(carry.variance, 16.0);
  // Bins [0, 6) next: its first pack is bin 7 of the first call plus bins 0..2.
  const auto b = packed_means(v, var, 0, 6, 3, carry);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_DOUBLE_EQ(b[0].first, (8 + 1 + 2 + 3) / 3.0);
  EXPECT_DOUBLE_EQ(b[0].second, std::sqrt(2.0 * (8 + 1 + 2 + 3)) / 3);
  // A pack of mean 0 gets error 1; packing 1 keeps every bin and leaves the sums alone.
  PackCarry zero;
  EXPECT_DOUBLE_EQ(packed_means({1, -1, 5}, {1, 1, 1}, 0, 3, 2, zero)[0].second, 1.0);
  const auto one = packed_means(v, var, 2, 4, 1, carry);
  ASSERT_EQ(one.size(), 2u);
  EXPECT_DOUBLE_EQ(one[1].second, std::sqrt(8.0));
}

// Two of musrfit's asymmetry examples at the parameters musrfit saved, against an independent
// script (tests/musr/reference/asymmetry_reference.py: its own MUD and PSI-BIN readers,
// PRunAsymmetry's steps in plain Python): the first packed bin, which holds the forward range's
// carried remainder in its backward pack, and χ² under current musrfit's rules. test-asy-MUD
// (stored 134.0): 133.962865 here, 166.104517 without the carry; test-asy-PSI-BIN: 566.764434.
TEST(MusrConventions, AsymmetryExamplesAtMusrfitsParameters) {
  struct Case {
    const char* msr;
    std::size_t bins;
    double first, first_error, chi2;
  };
  for (const Case& c : {Case{"test-asy-MUD.msr", 102, 0.176848601178, 0.00114201287043, 133.962865},
                        Case{"test-asy-PSI-BIN.msr", 355, 0.272631633993, 0.00441452537231, 566.764434}}) {
    SCOPED_TRACE(c.msr);
    const MsrFile m = read_msr(std::filesystem::path(TOMO_SOURCE_DIR) / "tests/musr/musrfit" / c.msr);
    const auto s = prepare_fit(m, [&](const MsrRun& r) { return load_run_data(m, r); });
    ASSERT_EQ(s.data.runs.size(), 1u);
    const auto& r = s.data.runs[0];
    ASSERT_EQ(r.y.size(), c.bins);
    EXPECT_NEAR(r.y[0], c.first, 1e-11);
    EXPECT_NEAR(r.sigma[0], c.first_error, 1e-13);
    std::vector<double> p;
    for (const auto& q : m.params) p.push_back(q.value);
    double chi2 = 0.0;
    for (std::size_t k = 0; k < r.y.size(); ++k) {
      const double d = r.y[k] - evaluate(r.model, p, r.t[k]);
      chi2 += d * d / (r.sigma[k] * r.sigma[k]);
    }
    EXPECT_NEAR(chi2, c.chi2, 2e-6);
  }
}

TEST(MusrConventions, HeaderT0OfZeroFallsBackToTheMaximumAndDefaultRange) {
  // No t0 in the msr, 0 in the file: t0 = bin of maximum (12); no data range: start
  // 12 + ⌊10 ns / 1 ns⌋ = 22, end = 40 (the histogram's length).
  PsiBinFile f;
  f.bin_width_us = 0.001;
  std::vector<std::int32_t> h(40, 20);
  h[12] = 900;
  f.histograms = {h};
  f.t0 = {0};
  f.first_good = {15};
  f.last_good = {30};
  const MsrFile m = parse_msr(
      "title\nFITPARAMETER\n 1 N0 10 1\n 2 A 0.2 0.01\nTHEORY\nasymmetry 2\n"
      "RUN f X TEST PSI-BIN\nfittype 0\nnorm 1\nforward 1\nbackgr.fix 0\nCOMMANDS\nSCALE_N0_BKG FALSE\nMIGRAD\n",
      "s.msr");
  const auto s = prepare_fit(m, [&](const MsrRun&) { return f; });
  const auto& r = s.data.runs[0];
  ASSERT_EQ(r.t.size(), 18u);  // bins 22..39
  EXPECT_NEAR(r.t[0], 0.010, 1e-15);
  // A fractional t0 of a single histogram: musrfit's time axis starts from ⌊t0⌋.
  const MsrFile frac = parse_msr(
      "title\nFITPARAMETER\n 1 N0 10 1\n 2 A 0.2 0.01\nTHEORY\nasymmetry 2\n"
      "RUN f X TEST PSI-BIN\nfittype 0\nnorm 1\nforward 1\nbackgr.fix 0\nt0 12.6\ndata 22 40\nCOMMANDS\nMIGRAD\n",
      "s.msr");
  EXPECT_NEAR(prepare_fit(frac, [&](const MsrRun&) { return f; }).data.runs[0].t[0], 0.010, 1e-15);
}

TEST(MusrConventions, AlphaAndBetaMayBeFunctions) {
  PsiBinFile f = four_histograms();
  f.histograms.resize(2);
  const std::string text =
      "title\nFITPARAMETER\n 1 a 0.55 0.01\n 2 A 0.2 0.01\nTHEORY\nasymmetry 2\nFUNCTIONS\nfun1 = 2 * par1\n"
      "RUN f X TEST PSI-BIN\nfittype 2\nforward 1\nbackward 2\nbackgr.fix 0 0\nt0 5 5\nalpha fun1\n"
      "COMMANDS\nMIGRAD\n";
  const auto s = prepare_fit(parse_msr(text, "a.msr"), [&](const MsrRun&) { return f; });
  const double a = 1.1, th = 0.2;
  EXPECT_NEAR(evaluate(s.data.runs[0].model, std::vector<double>{0.55, th}, 0.1), (th * (a + 1) - (a - 1)) / ((a + 1) - th * (a - 1)),
              1e-15);
  std::string bad = text;
  bad.replace(bad.find("alpha fun1"), 10, "alpha fun7");
  EXPECT_THROW(parse_msr(bad, "a.msr"), InputError);
}

TEST(MusrConventions, StatisticBlockIsReadBack) {
  const std::string base = asymmetry_msr("forward 1\nbackward 2\nbackgr.fix 0 0\n");
  const MsrFile m = parse_msr(base + "STATISTIC --- 2012-03-20 11:22:25\n  chisq = 554.2, NDF = 351, chisq/NDF = 1.578917\n", "a.msr");
  ASSERT_TRUE(m.statistic);
  EXPECT_FALSE(m.statistic->max_likelihood);
  EXPECT_DOUBLE_EQ(m.statistic->value, 554.2);
  EXPECT_EQ(m.statistic->ndf, 351);
  const MsrFile ml = parse_msr(base + "STATISTIC --- x\n  maxLH = 124.6, NDF = 197, maxLH/NDF = 0.632430\n", "a.msr");
  EXPECT_TRUE(ml.statistic->max_likelihood);
  EXPECT_EQ(ml.statistic->ndf, 197);
}

}  // namespace
}  // namespace tomo::musr
