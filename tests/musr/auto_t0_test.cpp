// t0 sanity: t0 from the prompt peak (as musrt0 -g), the warning for a t0 well before the
// peak, and the "did not converge" marker in the msr written back.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "compute/core/error.hpp"
#include "compute/musr/auto_t0.hpp"
#include "compute/musr/raw_bins.hpp"
#include "compute/musr/fit_setup.hpp"
#include "compute/musr/printout.hpp"

namespace tomo::musr {
namespace {

// Two histograms of 200 1-ns bins with prompt peaks at bins 40 and 47 over a flat 50.
PsiBinFile peaked() {
  PsiBinFile f;
  f.bin_width_us = 0.001;
  for (int peak : {40, 47}) {
    std::vector<std::int32_t> h(200, 50);
    h[peak] = 5000;
    h[peak + 1] = 900;
    f.histograms.push_back(h);
  }
  f.t0 = {1, 1};
  f.first_good = f.last_good = {0, 0};
  return f;
}

const std::string kAsymmetry =
    "title\nFITPARAMETER\n 1 A 0.2 0.01\nTHEORY\nasymmetry 1\n"
    "RUN f X TEST PSI-BIN   (comment)\nfittype 2\nforward 1\nt0 1 1\nbackward 2\n  data 2 150 2 150\nbackgr.fix 0 0\n"
    "COMMANDS\nMIGRAD\n";

// What preparing the fit of `msr_text` on the histograms `f` writes to stderr (the warnings).
std::string setup_warnings(const std::string& msr_text, const PsiBinFile& f) {
  testing::internal::CaptureStderr();
  (void)prepare_fit(parse_msr(msr_text, "a.msr"), [&](const MsrRun&) { return f; });
  return testing::internal::GetCapturedStderr();
}

TEST(MusrAutoT0, PromptPeaksAndDataFromT0PlusTenNanoseconds) {
  MsrFile m = parse_msr(kAsymmetry, "a.msr");
  const auto f = peaked();
  const auto lines = apply_auto_t0(m, [&](const MsrRun&) { return f; }, -1);
  // f1 b1 = 40 47; data from t0 + ⌊10 ns / 1 ns⌋ to the end of each histogram.
  EXPECT_EQ(m.runs[0].settings.t0, (std::vector<double>{40, 47}));
  EXPECT_EQ(m.runs[0].settings.data, (std::vector<int>{50, 200, 57, 200}));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "RUN 1 (f): t0              40.0  47.0; data            50  200  57  200");
  // The msr written back carries them in place of the RUN's old t0/data lines.
  const std::string text = format_msr(m, m.params, MsrStatistic{});
  EXPECT_NE(text.find("RUN f X TEST PSI-BIN   (comment)\nt0              40.0  47.0\ndata            50  200  57  200\nfittype 2\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("t0 1 1"), std::string::npos);
  EXPECT_EQ(text.find("data 2 150"), std::string::npos);
  // An explicit offset; the fit then starts 3 bins after each peak.
  MsrFile m3 = parse_msr(kAsymmetry, "a.msr");
  apply_auto_t0(m3, [&](const MsrRun&) { return f; }, 3);
  EXPECT_EQ(m3.runs[0].settings.data, (std::vector<int>{43, 200, 50, 200}));
  const auto s = prepare_fit(m3, [&](const MsrRun&) { return f; });
  EXPECT_NEAR(s.data.runs[0].t[0], 0.003, 1e-15);
}

TEST(MusrAutoT0, RotatingFrameAsymmetryPairsForwardAndBackwardAndBetaNmrIsRefused) {
  std::string rrf = kAsymmetry;
  rrf.replace(rrf.find("fittype 2"), 9, "fittype 3");
  rrf.replace(rrf.find("RUN f"), 0, "GLOBAL\nrrf_freq 13.5 MHz\nrrf_packing 20\n");
  MsrFile m = parse_msr(rrf, "a.msr");
  const auto f = peaked();
  apply_auto_t0(m, [&](const MsrRun&) { return f; }, -1);
  EXPECT_EQ(m.runs[0].settings.t0, (std::vector<double>{40, 47}));
  EXPECT_EQ(m.runs[0].settings.data, (std::vector<int>{50, 200, 57, 200}));
  const std::string bnmr =
      "title\nFITPARAMETER\n 1 A 0.2 0.01\nTHEORY\nasymmetry 1\n"
      "RUN f X TEST PSI-BIN   (comment)\nfittype 5\nforward 1 2\nbackward 1 2\nt0 1 1 1 1\n  data 2 150 2 150\n"
      "COMMANDS\nMIGRAD\n";
  MsrFile b = parse_msr(bnmr, "b.msr");
  try {
    apply_auto_t0(b, [&](const MsrRun&) { return f; }, -1);
    ADD_FAILURE() << "a beta-NMR run was given a prompt-peak t0";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(":6: RUN f: --auto-t0 finds a prompt peak"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("beta-NMR run (fittype 5) does not have"), std::string::npos) << e.what();
  }
}

TEST(MusrAutoT0, XyDataRunsAreLeftAsTheyAre) {
  MsrFile m = parse_msr("t\nFITPARAMETER\n 1 a 1 0.1\nTHEORY\nconst 1\nRUN sim PIM3 PSI ASCII\nfittype 8\nxy-data 1 2\nfit 0 1\n", "x.msr");
  const auto lines = apply_auto_t0(m, [](const MsrRun&) -> PsiBinFile { throw Error("an x-y RUN has no histograms to load"); }, -1);
  EXPECT_TRUE(lines.empty());
  EXPECT_TRUE(m.runs[0].settings.t0.empty());
}

TEST(MusrAutoT0, WarnsWhenT0LiesWellBeforeThePromptPeak) {
  const auto f = peaked();
  const std::string err = setup_warnings(kAsymmetry, f);
  EXPECT_NE(err.find("RUN f: histogram 1: t0 1 lies 39 bins before the prompt peak's rising edge at bin 40 (peak at bin 40); "
                     "`tomoraster fit --auto-t0`"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("histogram 2: t0 1 lies 46 bins"), std::string::npos) << err;
  // Within ⌊10 ns/Δt⌋ bins of the peak: no warning.
  std::string near = kAsymmetry;
  near.replace(near.find("t0 1 1"), 6, "t0 31 37");
  near.replace(near.find("data 2 150 2 150"), 16, "data 50 150 57 150");
  EXPECT_EQ(setup_warnings(near, f).find("prompt peak"), std::string::npos);
  // A pulsed source (ISIS) has no prompt peak: no warning whatever the t0.
  std::string isis = kAsymmetry;
  isis.replace(isis.find(" TEST "), 6, " ISIS ");
  EXPECT_EQ(setup_warnings(isis, f).find("prompt peak"), std::string::npos);
  EXPECT_EQ(t0_warning_bins(0.001), 10);
  EXPECT_EQ(t0_warning_bins(0.01), 3);
}

// A histogram without a prompt peak (a low-energy beam: the decay sets in at t0 with no spike)
// has its maximum on a Poisson excursion anywhere on the decay; that is no reason to warn.
TEST(MusrAutoT0, NoWarningWhereTheMaximumIsNoiseOnTheDecay) {
  PsiBinFile f;
  f.bin_width_us = 0.001;
  for (int h = 0; h < 2; ++h) {
    std::vector<std::int32_t> c(1000, 5);                   // before t0: background
    for (int i = 100; i < 1000; ++i) c[i] = 40 + 5 * (i % 5);  // from t0 = 100: the decay's level 50 ± noise
    c[700 + 50 * h] = 83;                                  // the maximum: one bin, 1.6× the level
    f.histograms.push_back(c);
  }
  f.t0 = {100, 100};
  f.first_good = f.last_good = {0, 0};
  std::string text = kAsymmetry;
  text.replace(text.find("t0 1 1"), 6, "t0 100 100");
  text.replace(text.find("data 2 150 2 150"), 16, "data 110 990 110 990");
  EXPECT_EQ(setup_warnings(text, f).find("prompt peak"), std::string::npos);
  // The maximum's "rising edge" (the last dip below its half, 41.5, is bin 695) lies far after t0:
  // the old rule alone warned here.
  const std::vector<double> flat(f.histograms[0].begin(), f.histograms[0].end());
  EXPECT_EQ(rising_edge(flat), 696);
  // The rule on its own: the bins [t0, edge) against as many from the edge on (both about 50).
  EXPECT_FALSE(t0_before_prompt_peak(flat, 100, 696));
  const auto p = peaked();
  const std::vector<double> spike(p.histograms[0].begin(), p.histograms[0].end());
  EXPECT_TRUE(t0_before_prompt_peak(spike, 1, 40));   // 50 a bin before, 199 after
  EXPECT_FALSE(t0_before_prompt_peak(spike, 40, 40));  // t0 at the edge
  EXPECT_FALSE(t0_before_prompt_peak(spike, 1, 200));  // no bins after the edge
}

// musrfit's own examples: its low-energy (LEM) files, t0 set by their authors and fitted as
// musrfit fits them, draw no warning; the tutorial's `t0 1` placeholders do.
TEST(MusrAutoT0, MusrfitsExamplesWarnOnlyForTheTutorialsPlaceholders) {
  const std::filesystem::path dir = std::filesystem::path(TOMO_SOURCE_DIR) / "tests/musr/musrfit";
  auto warnings = [&](const char* name) {
    const MsrFile m = read_msr(dir / name);
    testing::internal::CaptureStderr();
    (void)prepare_fit(m, [&](const MsrRun& r) { return load_run_data(m, r); });
    const std::string err = testing::internal::GetCapturedStderr();
    int n = 0;
    for (std::size_t at = 0; (at = err.find("before the prompt peak", at)) != std::string::npos; ++at) ++n;
    return n;
  };
  EXPECT_EQ(warnings("test-histo-MusrRoot.msr"), 0);
  EXPECT_EQ(warnings("ASlibs/test-nonlocal.msr"), 0);
  EXPECT_EQ(warnings("BMWlibs/test-libFitPofB_Meissner-ROOT-NPP.msr"), 0);
  EXPECT_EQ(warnings("3110_tutorial.msr"), 3);  // its three RUNs: histograms 3, 4 and 5
}

TEST(MusrAutoT0, AFitThatDidNotConvergeSaysSoInTheWrittenMsr) {
  const MsrFile m = parse_msr(kAsymmetry, "a.msr");
  MsrStatistic stat{.value = 20762264.29, .ndf = 1161, .date = "d", .converged = false};
  const std::string text = format_msr(m, m.params, stat);
  EXPECT_NE(text.find("STATISTIC --- d\n  chisq = 20762264.3, NDF = 1161, chisq/NDF = 17883.087244\n*** FIT DID NOT CONVERGE ***\n"),
            std::string::npos)
      << text;
  const MsrFile back = parse_msr(text, "b.msr");
  ASSERT_TRUE(back.statistic);
  EXPECT_FALSE(back.statistic->converged);
  stat.converged = true;
  EXPECT_EQ(format_msr(m, m.params, stat).find("NOT CONVERGE"), std::string::npos);
  // statistic_of: converged only when MIGRAD converged, HESSE found errors and χ² is finite.
  FitSetup setup;
  FitResult r;
  r.converged = true;
  r.hesse_ok = false;
  EXPECT_FALSE(statistic_of(r, setup, "d").converged);
  r.hesse_ok = true;
  EXPECT_TRUE(statistic_of(r, setup, "d").converged);
  r.fmin = NAN;
  EXPECT_FALSE(statistic_of(r, setup, "d").converged);
}

// The rising edge is the first bin of the run at or above half the maximum that holds it: a
// slow rise towards a late maximum (a low-energy beam's broad time structure) starts early.
TEST(MusrAutoT0, TheRisingEdgeIsWhereThePeakReachesHalfItsHeight) {
  EXPECT_EQ(rising_edge({1, 1, 2, 10, 4, 3}), 3);
  EXPECT_EQ(rising_edge({1, 6, 7, 8, 9, 10, 2}), 1);
  EXPECT_EQ(rising_edge({10, 9, 8}), 0);
  EXPECT_EQ(rising_edge({}), 0);
  EXPECT_TRUE(pulsed_source("ISIS"));
  EXPECT_TRUE(pulsed_source("riken-ral"));
  EXPECT_FALSE(pulsed_source("PSI"));
  EXPECT_FALSE(pulsed_source("TRIUMF"));
}

}  // namespace
}  // namespace tomo::musr
