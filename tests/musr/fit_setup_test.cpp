// Data preparation against hand-computed values: musrfit's packing (and its dropped last
// pack), bin times, SCALE_N0_BKG, background estimate, grouping with t0 alignment, fit range
// in bins, asymmetry and its error.
#include <gtest/gtest.h>

#include <cmath>

#include "compute/core/error.hpp"
#include "compute/musr/fit_setup.hpp"

namespace tomo::musr {
namespace {

PsiBinFile ramp(int nh = 1) {
  PsiBinFile f;
  f.bin_width_us = 0.001;  // 1 ns
  for (int h = 0; h < nh; ++h) {
    std::vector<std::int32_t> v(20);
    for (int i = 0; i < 20; ++i) v[i] = (h + 1) * (i + 1);
    f.histograms.push_back(v);
    f.t0.push_back(2 + 2 * h);
    f.first_good.push_back(3);
    f.last_good.push_back(15);
  }
  return f;
}

std::string single(const std::string& run_extra, const std::string& commands = "MIGRAD\n") {
  return "title\nFITPARAMETER\n 1 N0 10 1\n 2 A 0.2 0.01\nTHEORY\nasymmetry 2\n"
         "RUN f X TEST PSI-BIN\nfittype 0\nnorm 1\nforward 1\ndata 3 15\nt0 2\npacking 3\n" +
         run_extra + "COMMANDS\n" + commands;
}

TEST(MusrSetup, PackingTimesAndScaleAsMusrfit) {
  const MsrFile m = parse_msr(single("backgr.fix 0.5\n"), "s.msr");
  const auto s = prepare_fit(m, [](const MsrRun&) { return ramp(); });
  const auto& r = s.data.runs.at(0);
  // Bins 3..14 in packs of 3: (4+5+6), (7+8+9), (10+11+12); the last full pack (13+14+15) is
  // dropped because no bin i < lgb starts a new pack. Divided by p·Δt[ns] = 3.
  ASSERT_EQ(r.t.size(), 3u);
  EXPECT_DOUBLE_EQ(r.y[0], 5.0);
  EXPECT_DOUBLE_EQ(r.y[1], 8.0);
  EXPECT_DOUBLE_EQ(r.y[2], 11.0);
  EXPECT_DOUBLE_EQ(r.sigma[1], std::sqrt(24.0) / 3.0);
  // t_k = Δt((fgb − ½) + p/2 − t0) + k·p·Δt
  EXPECT_NEAR(r.t[0], 0.002, 1e-15);
  EXPECT_NEAR(r.t[2], 0.008, 1e-15);
  EXPECT_DOUBLE_EQ(r.scale, 3.0);
  const std::vector<double> p{10.0, 0.2};
  EXPECT_NEAR(evaluate(r.model, p, 0.005), 10.0 * std::exp(-0.005 / kMuonLifetime) * 1.2 + 0.5, 1e-12);
  EXPECT_EQ(s.used, (std::vector<bool>{true, true}));
}

TEST(MusrSetup, NoScaleN0BkgKeepsCounts) {
  const MsrFile m = parse_msr(single("backgr.fix 0.5\n", "SCALE_N0_BKG FALSE\nMIGRAD\n"), "s.msr");
  const auto s = prepare_fit(m, [](const MsrRun&) { return ramp(); });
  EXPECT_DOUBLE_EQ(s.data.runs[0].y[0], 15.0);
  EXPECT_DOUBLE_EQ(s.data.runs[0].sigma[0], std::sqrt(15.0));
  EXPECT_DOUBLE_EQ(s.data.runs[0].scale, 1.0);
}

TEST(MusrSetup, BackgroundFromBinRange) {
  const MsrFile m = parse_msr(single("background 0 2\n"), "s.msr");
  const auto s = prepare_fit(m, [](const MsrRun&) { return ramp(); });
  // musrfit's EstimateBkg sums bins [0, 2) but divides by 2 − 0 + 1: (1 + 2) / 3 = 1 count per
  // 1-ns bin → 1 per ns in the scaled theory.
  EXPECT_DOUBLE_EQ(s.runs[0].background, 1.0);
  const std::vector<double> p{10.0, 0.0};
  EXPECT_NEAR(evaluate(s.data.runs[0].model, p, 0.0), 11.0, 1e-12);
  // Neither backgr.fit, backgr.fix nor background: musrfit's window [⌊0.1·t0⌋, ⌊0.6·t0⌋]; with
  // t0 = 12: bins [1, 7) over 7 = (2 + 3 + … + 7) / 7 = 27/7.
  std::string text = single("");
  text.replace(text.find("t0 2\n"), 5, "t0 12\n");
  text.replace(text.find("data 3 15"), 9, "data 13 20");
  const auto d = prepare_fit(parse_msr(text, "s.msr"), [](const MsrRun&) { return ramp(); });
  EXPECT_DOUBLE_EQ(d.runs[0].background, 27.0 / 7.0);
}

TEST(MusrSetup, GroupsAlignToTheFirstT0AndFitRangeInBins) {
  std::string text = single("backgr.fix 0\n");
  text.replace(text.find("forward 1\n"), 10, "forward 1 2\n");
  text.replace(text.find("t0 2\n"), 5, "t0 2 4\nfit fgb+3 lgb-0\n");
  const MsrFile m = parse_msr(text, "s.msr");
  const auto s = prepare_fit(m, [](const MsrRun&) { return ramp(2); });
  const auto& r = s.data.runs[0];
  // Group bin i = h1[i] + h2[i+2] = (i+1) + 2(i+3); packs (3,4,5), (6,7,8), (9,10,11).
  // fit fgb+3: t ≥ (3+3−2)·Δt = 0.004 µs drops the first pack (t = 0.002).
  ASSERT_EQ(r.t.size(), 2u);
  auto g = [](int i) { return (i + 1) + 2.0 * (i + 3); };
  EXPECT_DOUBLE_EQ(r.y[0], (g(6) + g(7) + g(8)) / 3.0);
  EXPECT_NEAR(r.t[0], 0.005, 1e-15);
}

TEST(MusrSetup, AsymmetryAndItsError) {
  PsiBinFile f;
  f.bin_width_us = 0.01;
  f.histograms = {std::vector<std::int32_t>(50, 100), std::vector<std::int32_t>(50, 60)};
  f.t0 = {5, 5};
  f.first_good = {6, 6};
  f.last_good = {40, 40};
  const std::string text =
      "title\nFITPARAMETER\n 1 alpha 1.1 0.01\n 2 A 0.2 0.01\nTHEORY\nasymmetry 2\n"
      "RUN f X TEST PSI-BIN\nfittype 2\nalpha 1\nforward 1\nbackward 2\nbackgr.fix 10 5\n"
      "COMMANDS\nMIGRAD\n";
  const auto s = prepare_fit(parse_msr(text, "a.msr"), [&](const MsrRun&) { return f; });
  const auto& r = s.data.runs[0];
  const double F = 90, B = 55;
  ASSERT_GT(r.t.size(), 10u);
  EXPECT_DOUBLE_EQ(r.y[3], (F - B) / (F + B));
  EXPECT_DOUBLE_EQ(r.sigma[3], 2.0 / ((F + B) * (F + B)) * std::sqrt(B * B * 100 + F * F * 60));
  // A_th = (f(αβ+1) − (α−1)) / ((α+1) − f(αβ−1)) with β = 1
  const double a = 1.1, th = 0.2;
  EXPECT_NEAR(evaluate(r.model, std::vector<double>{a, th}, 0.1), (th * (a + 1) - (a - 1)) / ((a + 1) - th * (a - 1)), 1e-15);
  // MAX_LIKELIHOOD with an asymmetry run falls back to χ², as musrfit.
  auto ml = text;
  ml.replace(ml.find("MIGRAD"), 6, "MAX_LIKELIHOOD\nMIGRAD");
  EXPECT_EQ(prepare_fit(parse_msr(ml, "a.msr"), [&](const MsrRun&) { return f; }).data.statistic, Statistic::chi2);
}

TEST(MusrSetup, DataEndBeyondTheHistogramIsClampedAndWrongHistogramsRefused) {
  // musrfit clamps a `data` end past the histogram to its last bin (size − 1 = 19): bins 3..18
  // in packs of 3 give 5 packs, the last of counts (16+17+18)/3.
  std::string text = single("backgr.fix 0\n");
  text.replace(text.find("data 3 15"), 9, "data 3 25");
  const auto s = prepare_fit(parse_msr(text, "s.msr"), [](const MsrRun&) { return ramp(); });
  ASSERT_EQ(s.data.runs[0].y.size(), 5u);
  EXPECT_DOUBLE_EQ(s.data.runs[0].y[4], 17.0);
  std::string t2 = single("backgr.fix 0\n");
  t2.replace(t2.find("forward 1"), 9, "forward 3");
  EXPECT_THROW(prepare_fit(parse_msr(t2, "s.msr"), [](const MsrRun&) { return ramp(); }), InputError);
  // A start outside the histogram is refused, naming the range.
  std::string t3 = single("backgr.fix 0\n");
  t3.replace(t3.find("data 3 15"), 9, "data 30 40");
  try {
    prepare_fit(parse_msr(t3, "s.msr"), [](const MsrRun&) { return ramp(); });
    FAIL() << "a data range past the histogram was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("data range 30..40 is not inside 0..20"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tomo::musr
