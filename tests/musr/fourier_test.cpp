// The FOURIER block and musrview's transform against hand computations: a cosine on a
// frequency bin gives N/2 in the real part once the phase is referred to t = 0, the
// resolution in each unit, musrfit's apodization polynomial, DC correction, `range`, and the
// block's values read (and bad ones refused naming the line).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "compute/core/error.hpp"
#include "compute/musr/expression.hpp"
#include "compute/musr/fourier.hpp"
#include "compute/musr/plot_block.hpp"

namespace tomo::musr {
namespace {

constexpr double kDt = 0.01;  // µs
constexpr int kN = 1024;      // 2^10 points: Δf = 1/(0.01·1024) MHz = 0.09765625 MHz

std::vector<double> times(std::size_t n, double t0) {
  std::vector<double> t(n);
  for (std::size_t i = 0; i < n; ++i) t[i] = t0 + static_cast<double>(i) * kDt;
  return t;
}

TEST(MusrFourier, CosineOnABinIsRealAfterReferringThePhaseToTimeZero) {
  const int k = 14;
  const double nu = k / (kDt * kN);  // 1.3671875 MHz
  const auto t = times(kN, 0.05);    // data start 0.05 µs after t0
  std::vector<double> a(kN);
  for (int i = 0; i < kN; ++i) a[i] = std::cos(2 * std::numbers::pi * nu * t[i]);
  FourierSettings s{.unit = FourierUnit::mhz, .power = 10};
  auto f = fourier_transform(t, a, s);
  ASSERT_EQ(f.x.size(), kN / 2u);
  EXPECT_DOUBLE_EQ(f.resolution, 0.09765625);
  EXPECT_NEAR(f.x[k], nu, 1e-12);
  EXPECT_NEAR(f.re[k], kN / 2.0, 1e-9);
  EXPECT_NEAR(f.im[k], 0.0, 1e-9);
  EXPECT_NEAR(f.re[k + 3], 0.0, 1e-9);
  // phase 90°: re cos φ − im sin φ = 0, re sin φ + im cos φ = N/2.
  s.phase_deg = 90.0;
  f = fourier_transform(t, a, s);
  EXPECT_NEAR(f.re[k], 0.0, 1e-9);
  EXPECT_NEAR(f.im[k], kN / 2.0, 1e-9);
  // Units: Gauss = MHz / (γ/2π), Tesla = 1e-4 Gauss, Mc/s = 2π MHz; `range` keeps [lo, hi].
  s.unit = FourierUnit::gauss;
  EXPECT_DOUBLE_EQ(fourier_transform(t, a, s).resolution, 0.09765625 / kGammaMuOver2Pi);
  s.unit = FourierUnit::tesla;
  EXPECT_DOUBLE_EQ(fourier_transform(t, a, s).resolution, 1e-4 * 0.09765625 / kGammaMuOver2Pi);
  s.unit = FourierUnit::mc_per_s;
  EXPECT_DOUBLE_EQ(fourier_transform(t, a, s).resolution, 2 * std::numbers::pi * 0.09765625);
  s.unit = FourierUnit::mhz;
  s.range = std::pair{1.0, 2.0};
  f = fourier_transform(t, a, s);
  ASSERT_FALSE(f.x.empty());
  EXPECT_NEAR(f.x.front(), 11 * 0.09765625, 1e-12);  // first bin ≥ 1 MHz
  EXPECT_NEAR(f.x.back(), 20 * 0.09765625, 1e-12);   // last bin ≤ 2 MHz
}

TEST(MusrFourier, ZeroPaddingApodizationAndDcCorrection) {
  // 512 data points padded to 2^10: a unit impulse at i = 256 = N_data/2 weighted by musrfit's
  // WEAK polynomial at (1/2)²: c0 + c1/4 + c2/16 with c0 = 0.384093 − 0.087577 + 0.703484 = 1,
  // c1 = −(−0.087577 + 2·0.703484) = −1.319391, c2 = 0.703484: 0.71412 in every |F_k|.
  const auto t = times(512, 0.0);
  std::vector<double> a(512, 0.0);
  a[256] = 1.0;
  const FourierSettings s{.unit = FourierUnit::mhz, .power = 10, .apodization = Apodization::weak};
  const auto f = fourier_transform(t, a, s);
  ASSERT_EQ(f.x.size(), 512u);
  EXPECT_DOUBLE_EQ(f.resolution, 0.09765625);
  const double q = 1.0 - 1.319391 / 4 + 0.703484 / 16;
  for (std::size_t k : {0u, 7u, 300u}) EXPECT_NEAR(std::hypot(f.re[k], f.im[k]), q, 1e-12) << k;
  // DC correction removes a constant.
  const std::vector<double> flat(512, 0.3);
  const auto g = fourier_transform(t, flat, FourierSettings{.power = 10, .dc_corrected = true});
  for (std::size_t k = 0; k < g.x.size(); ++k) EXPECT_NEAR(std::hypot(g.re[k], g.im[k]), 0.0, 1e-12);
}

TEST(MusrFourier, TheBlockIsReadAndBadValuesRefused) {
  const std::string head =
      "title\nFITPARAMETER\n 1 A 0.2 0.01\n 2 ph 12.5 0.1\nTHEORY\nasymmetry 1\nRUN f X TEST PSI-BIN\nfittype 2\nforward 1\n"
      "backward 2\nbackgr.fix 0 0\nCOMMANDS\nMIGRAD\nFOURIER\n";
  const MsrFile m = parse_msr(head + "units            Gauss   # comment\nfourier_power    12\napodization      MEDIUM\n"
                                     "plot             REAL_AND_IMAG\nphase            8.5\ndc-corrected true\nrange            0    200\n",
                              "f.msr");
  const auto s = read_fourier_block(m, std::vector<double>{0.2, 12.5});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->unit, FourierUnit::gauss);
  EXPECT_EQ(s->power, 12);
  EXPECT_EQ(s->apodization, Apodization::medium);
  EXPECT_EQ(s->plot, FourierPlot::real_and_imag);
  EXPECT_DOUBLE_EQ(s->phase_deg, 8.5);
  EXPECT_TRUE(s->dc_corrected);
  EXPECT_EQ(s->range, (std::pair{0.0, 200.0}));
  // phase parN takes the parameter's value.
  EXPECT_DOUBLE_EQ(read_fourier_block(parse_msr(head + "phase par2\n", "f.msr"), std::vector<double>{0.2, 12.5})->phase_deg, 12.5);
  // No block: nothing to transform.
  EXPECT_FALSE(read_fourier_block(parse_msr(head.substr(0, head.find("FOURIER")), "f.msr"), std::vector<double>{0.2, 12.5}));
  auto refusal = [&](const std::string& line) {
    try {
      (void)read_fourier_block(parse_msr(head + line, "f.msr"), std::vector<double>{0.2, 12.5});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal("units furlongs\n"), ":15: FOURIER units 'furlongs' is not Gauss, Tesla, MHz or Mc/s");
  EXPECT_EQ(refusal("fourier_power 40\n"), ":15: FOURIER fourier_power '40' is not an integer in 0..24");
  EXPECT_EQ(refusal("phase par9\n"), ":15: FOURIER phase 'par9' names no parameter");
  EXPECT_EQ(refusal("range 200 0\n"), ":15: FOURIER range end '0' is not above its start");
}

// musrview's phase lists: values, parameters, a parR reference (the others relative to it) and
// the par(X0, offset, n) iterator, paired with the first PLOT block's runs.
TEST(MusrFourier, PhaseListsAsMusrview) {
  const std::string head =
      "t\nFITPARAMETER\n 1 a 0.2 0.01\n 2 ph 10 1\n 3 d1 180 1\n 4 d2 90 1\n 5 d3 45 1\nTHEORY\nasymmetry 1\n"
      "RUN x PIE1 PSI PSI-BIN\nfittype 2\nforward 1\nbackward 2\nbackgr.fix 0 0\n"
      "RUN y PIE1 PSI PSI-BIN\nfittype 2\nforward 1\nbackward 2\nbackgr.fix 0 0\nCOMMANDS\nMIGRAD\n"
      "FOURIER\n";
  const std::vector<double> p{0.2, 10, 180, 90, 45};
  auto phases = [&](const std::string& block) {
    return read_fourier_block(parse_msr(head + block, "f.msr"), p)->phases_deg;
  };
  EXPECT_EQ(phases("phase -3.2, 175.9\n"), (std::vector<double>{-3.2, 175.9}));
  EXPECT_EQ(phases("phase par2 par3  # two runs\n"), (std::vector<double>{10, 180}));
  EXPECT_EQ(phases("phase parR2 par3\n"), (std::vector<double>{10, 190}));
  EXPECT_EQ(phases("phase par3, parR2; par4\n"), (std::vector<double>{190, 10, 100}));
  EXPECT_EQ(phases("phase par(2, 1, 3)\n"), (std::vector<double>{10, 180, 90}));
  EXPECT_EQ(phases("phase parR(2, 2, 2)\n"), (std::vector<double>{10, 100}));
  EXPECT_EQ(phases("phase 8.5\n"), (std::vector<double>{8.5}));
  auto refusal = [&](const std::string& block) {
    try {
      (void)read_fourier_block(parse_msr(head + block, "f.msr"), p);
    } catch (const InputError& e) {
      const std::string w = e.what();
      return w.substr(w.find(": FOURIER"));
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal("phase parR2 parR3\n"), ": FOURIER phase 'parR2 parR3' marks more than one reference phase (parR)");
  EXPECT_EQ(refusal("phase par2 3\n"), ": FOURIER phase '3' is not parX or parRX with X a parameter number");
  EXPECT_EQ(refusal("phase par(2, 1)\n"), ": FOURIER phase 'par(2, 1)' is not par(X0, offset, #param) with whole numbers");
  EXPECT_EQ(refusal("phase par(2, 1, 9)\n"), ": FOURIER phase 'par6' names no parameter");
  EXPECT_EQ(refusal("phase 1, x\n"), ": FOURIER 'phase' value 'x' is not a number");
  EXPECT_EQ(refusal("phase\n"), ": FOURIER 'phase' needs a value");
  // Several phases pair with the first PLOT block's runs; a count that differs is refused.
  EXPECT_EQ(refusal("phase par2 par3 par4\nPLOT 0\nruns 1 2\n"),
            ": FOURIER phase lists 3 phases for the 2 runs of the first PLOT block (one phase, or one per plotted run)");
  const MsrFile m = parse_msr(head + "phase parR2 par3\nPLOT 0\nruns 2 1\n", "f.msr");
  const auto s = *read_fourier_block(m, p);
  const auto runs = first_plot_runs(m);
  EXPECT_DOUBLE_EQ(run_phase(s, runs, 1), 10.0);   // RUN 2 is the plot's first
  EXPECT_DOUBLE_EQ(run_phase(s, runs, 0), 190.0);  // RUN 1 its second: 180 relative to 10
  EXPECT_DOUBLE_EQ(run_phase(s, {}, 1), 190.0);    // without a PLOT block: RUN order
}

}  // namespace
}  // namespace tomo::musr
