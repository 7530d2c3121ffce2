// glpet Monte-Carlo simulator against the analytic point-source expectation, and the
// attenuation survival against Beer–Lambert.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/glpet/analytic.hpp"
#include "compute/glpet/monte_carlo.hpp"
#include "compute/glpet/ring.hpp"
#include "tests/glpet/small_system.hpp"

namespace tomo::glpet {
namespace {

TEST(GlpetMonteCarlo, PointSourceCountsMatchSolidAngleFractions) {
  const auto sys = test::small_system();
  const Vec3 p{3.0, -2.0, 5.0};
  McOptions opt;
  opt.histories = 4'000'000;
  opt.seed = 7;
  const McResult mc = simulate(sys.scanner, sys.sigma_t, PointSource(p), opt);
  const auto prob = test::point_source_probabilities(sys.scanner.pairs[0], p);
  double expected_total = 0, chi2 = 0;
  int ndf = 0;
  for (std::size_t l = 0; l < prob.size(); ++l) {
    const double m = prob[l] * opt.histories;
    expected_total += m;
    if (m > 20) {
      chi2 += (mc.counts[l] - m) * (mc.counts[l] - m) / m;
      ++ndf;
    } else if (m == 0) {
      EXPECT_EQ(mc.counts[l], 0.0f) << "LOR " << l << " cannot be reached from the source";
    }
  }
  ASSERT_GT(ndf, 100);
  EXPECT_NEAR(double(mc.detected), expected_total, 4 * std::sqrt(expected_total));
  EXPECT_GT(chi2 / ndf, 0.85);
  EXPECT_LT(chi2 / ndf, 1.15);
  EXPECT_EQ(mc.geometric, mc.detected);  // no attenuation
}

TEST(GlpetMonteCarlo, AttenuationSurvivalFollowsBeerLambert) {
  // A 16³ cube of σ = 0.02/mm (32 mm): a source at its centre, lines within the 32×32 mm
  // modules leave through the z faces: ∫σ = 0.02·32/cos θ. The survival fraction is the
  // mean of exp(−0.64/cos θ) over detected directions, checked against the zero-σ run.
  auto sys = test::small_system();
  for (float& s : sys.sigma_t.data) s = 0.02f;
  const Vec3 p{0.5, 0.25, 0.0};
  McOptions opt;
  opt.histories = 2'000'000;
  const McResult mc = simulate(sys.scanner, sys.sigma_t, PointSource(p), opt);
  const auto prob = test::point_source_probabilities(sys.scanner.pairs[0], p);
  // Expected surviving counts: Σ_l P_l · exp(−0.02·32/cos θ_l) with θ_l of the LOR's
  // central line (the variation of θ within a LOR is small at these sizes).
  double expected = 0, geometric = 0;
  const auto& pair = sys.scanner.pairs[0];
  for (int i0 = 0; i0 < 8; ++i0)
    for (int j0 = 0; j0 < 8; ++j0)
      for (int i1 = 0; i1 < 8; ++i1)
        for (int j1 = 0; j1 < 8; ++j1) {
          const double pl = prob[pair.lor_index(i0, j0, i1, j1)];
          if (pl == 0) continue;
          const Vec3 a = pair.modules[0].point((i0 + 0.5) * 4, (j0 + 0.5) * 4);
          const Vec3 b = pair.modules[1].point((i1 + 0.5) * 4, (j1 + 0.5) * 4);
          const double cos_t = std::fabs(b[2] - a[2]) / norm(sub(b, a));
          expected += pl * std::exp(-0.64 / cos_t);
          geometric += pl;
        }
  expected *= opt.histories;
  geometric *= opt.histories;
  EXPECT_NEAR(double(mc.geometric), geometric, 4 * std::sqrt(geometric));
  EXPECT_NEAR(double(mc.detected), expected, 4 * std::sqrt(expected) + 0.003 * expected);
}

TEST(GlpetMonteCarlo, PoissonScalingHitsTheTotalAndIsDeterministic) {
  const auto sys = test::small_system();
  VolumeF act(sys.grid, 0.0f);
  act.at(8, 8, 8) = 1;
  act.at(4, 9, 10) = 2;
  McOptions opt;
  opt.histories = 200'000;
  opt.total_counts = 50'000;
  const McResult a = simulate(sys.scanner, sys.sigma_t, VoxelSource(act), opt);
  const McResult b = simulate(sys.scanner, sys.sigma_t, VoxelSource(act), opt);
  double total = 0;
  for (float c : a.counts) {
    total += c;
    EXPECT_EQ(c, std::floor(c));
  }
  EXPECT_NEAR(total, 50'000, 4 * std::sqrt(50'000.0));
  EXPECT_EQ(a.counts, b.counts);
  EXPECT_NEAR(a.scale, 50'000.0 / a.detected, 1e-12);
}

// A ring's modules are shared by several pairs and intersected once per history; the same
// scanner with every pair holding its own copies (no module shared) takes the per-pair path.
// Both must count the same LORs, event for event, with attenuation draws in between.
TEST(GlpetMonteCarlo, SharedModulesCountAsIntersectingEachPairAlone) {
  Ring ring;
  ring.modules = 8;
  ring.n_a = ring.n_t = 6;
  ring.pitch_a = ring.pitch_t = 5.0;
  ring.phase_deg = 1.234;
  const Scanner shared = ring_scanner(ring);
  Scanner own = shared;
  own.pair_modules.clear();  // pair p names modules 2p and 2p + 1: nothing shared
  VolumeF act(Grid3::centred({12, 12, 6}, {4, 4, 4}), 0.0f);
  VolumeF sigma = act;
  for (int k = 0; k < 6; ++k)
    for (int j = 0; j < 12; ++j)
      for (int i = 0; i < 12; ++i) {
        act.at(i, j, k) = float(1 + (i + j + k) % 3);
        sigma.at(i, j, k) = 0.02f;
      }
  McOptions opt;
  opt.histories = 300'000;
  opt.seed = 11;
  const McResult a = simulate(shared, sigma, VoxelSource(act), opt);
  const McResult b = simulate(own, sigma, VoxelSource(act), opt);
  ASSERT_GT(a.detected, 1000);
  EXPECT_LT(a.detected, a.geometric);  // attenuation drew
  EXPECT_EQ(a.geometric, b.geometric);
  EXPECT_EQ(a.detected, b.detected);
  EXPECT_EQ(a.counts, b.counts);
}

}  // namespace
}  // namespace tomo::glpet
