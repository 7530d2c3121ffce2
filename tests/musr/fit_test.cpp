// Fits of eq. (5) Monte-Carlo data (an independent closed-form model) recover the true
// parameters within their errors; the χ² gradient matches finite differences.
#include <gtest/gtest.h>

#include <cmath>

#include "compute/core/registry.hpp"
#include "compute/musr/fit_setup.hpp"
#include "compute/musr/minimizer.hpp"
#include "compute/musr/simulator.hpp"

namespace tomo::musr {
namespace {

Eq5Config small_config(std::uint64_t seed) {
  Eq5Config c;
  c.detectors = 4;
  c.bins = 3000;
  c.dt_us = 0.00390625;
  c.t0_bin = 100;
  c.first_good = 105;
  c.n0 = 1000.0;
  c.fit_end_us = 6.0;  // counts ≥ 60: Neyman χ² (σ² = data) is unbiased enough there
  c.bkg = 1.5;
  c.field_g = 150.0;
  c.seed = seed;
  return c;
}

struct Prepared {
  MsrFile msr;
  FitSetup setup;
  std::unique_ptr<Chi2Evaluator> ev;
};

Prepared prepare(const Eq5Config& c, bool ml) {
  Prepared p;
  p.msr = parse_msr(eq5_msr(c, "sim", ml), "sim.msr");
  const PsiBinFile data = simulate_eq5(c);
  p.setup = prepare_fit(p.msr, [&](const MsrRun&) { return data; });
  p.ev = BackendRegistry<Chi2Evaluator>::instance().create("cpu");
  p.ev->configure({});
  p.ev->upload(p.setup.data);
  return p;
}

TEST(MusrFit, GradientOfChi2AndLikelihoodMatchesFiniteDifferences) {
  for (bool ml : {false, true}) {
    auto p = prepare(small_config(3), ml);
    std::vector<double> x;
    for (const auto& q : p.msr.params) x.push_back(q.value);
    std::vector<double> g(x.size());
    const double f = p.ev->evaluate_with_gradient(x, g);
    EXPECT_NEAR(f, p.ev->evaluate(x), 1e-9 * f);
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double h = 1e-6 * std::max(1.0, std::fabs(x[i]));
      auto xp = x, xm = x;
      xp[i] += h;
      xm[i] -= h;
      const double fd = (p.ev->evaluate(xp) - p.ev->evaluate(xm)) / (2 * h);
      EXPECT_NEAR(g[i], fd, 1e-5 * std::max(1.0, std::fabs(fd))) << (ml ? "ML " : "chi2 ") << p.msr.params[i].name;
    }
  }
}

TEST(MusrFit, RecoversTrueParametersWithinErrors) {
  // Pulls (fit − truth)/error of the shared parameters over a few seeds; each |pull| < 4,
  // and χ²/NDF near 1.
  for (std::uint64_t seed : {11u, 12u, 13u}) {
    const auto c = small_config(seed);
    auto p = prepare(c, false);
    auto r = run_fit(*p.ev, p.msr, p.setup.used, p.setup.data.statistic);
    ASSERT_TRUE(r.converged) << "seed " << seed << " EDM " << r.edm;
    const double ndf = static_cast<double>(p.setup.data.bins()) - r.free_count();
    EXPECT_NEAR(r.fmin / ndf, 1.0, 5.0 * std::sqrt(2.0 / ndf)) << "seed " << seed;
    auto pull = [&](int i, double truth) { return (r.params[i].value - truth) / r.params[i].error; };
    EXPECT_LT(std::fabs(pull(0, c.sigma)), 4.0) << "sigma " << r.params[0].value << " ± " << r.params[0].error;
    EXPECT_LT(std::fabs(pull(1, c.field_g)), 4.0) << "field " << r.params[1].value << " ± " << r.params[1].error;
    for (int j = 0; j < c.detectors; ++j) {
      EXPECT_LT(std::fabs(pull(2 + 4 * j, c.n0 / (c.dt_us * 1e3))), 4.0);
      EXPECT_LT(std::fabs(pull(3 + 4 * j, c.asymmetry)), 4.0);
      EXPECT_LT(std::fabs(pull(4 + 4 * j, c.phase(j))), 4.0);
    }
  }
}

}  // namespace
}  // namespace tomo::musr
