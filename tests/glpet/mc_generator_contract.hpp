// The glpet::McGenerator contract (included by mc_generator_contract_test.cpp for cpu and
// mc_generator_contract_gpu_test.cpp for cuda), on the default ring with its attenuation: a
// backend's tally of the histories is the host's LOR for LOR (cpu: exactly; cuda: but for
// histories whose libm last bit moves a detector edge, a voxel floor or a survival draw, each
// ~1e-15 relative: none expected, 4 allowed, as test_glpet_gpu's 10⁷-history comparison); the
// shares of two processes sum to one process's tally count for count; histories out of range are
// refused as the cpu refuses them.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "compute/core/error.hpp"
#include "compute/core/scene.hpp"
#include "compute/glpet/config.hpp"
#include "compute/glpet/monte_carlo.hpp"
#include "tests/support/backend_contract.hpp"

namespace tomo::glpet::test {

class GlpetMcGeneratorContract : public tomo::test::BackendContract<McGenerator> {
 protected:
  static GlpetScene default_ring() {
    return read_glpet_scene(Scene::load_string(embedded_default_scene(), "<default.toml>"));
  }
};

// Σ|Δ| of two histograms.
inline double histogram_distance(const McTally& a, const McTally& b) {
  double d = 0;
  for (std::size_t l = 0; l < a.hist.size(); ++l) d += std::fabs(a.hist[l] - b.hist[l]);
  return d;
}

TEST_P(GlpetMcGeneratorContract, TallyEqualsTheHostsForTheSameSeed) {
  const GlpetScene g = default_ring();
  McOptions opt = g.mc;
  opt.histories = 3 * kMcChunk + 1234;  // four chunks, the last one short
  opt.seed = 20261129;
  const VoxelSource source(g.activity_volume);
  McTables t;
  make_tables(t, g.system.scanner, g.system.sigma_t, source);
  const McTally want = tally_on_host(t, opt, ProcessShare{0, 1});
  auto gen = BackendRegistry<McGenerator>::instance().create(backend());
  const McTally got = gen->tally(t, opt, "", ProcessShare{0, 1});
  gen->synchronize();
  ASSERT_EQ(got.hist.size(), t.lor_count);
  ASSERT_GT(want.detected, 1000);
  EXPECT_LT(want.detected, want.geometric);  // survival draws happened
  const double allowed = is_cpu() ? 0 : 4;
  EXPECT_LE(std::fabs(double(got.geometric - want.geometric)), allowed);
  EXPECT_LE(std::fabs(double(got.detected - want.detected)), allowed);
  EXPECT_LE(histogram_distance(got, want), 2 * allowed);
  EXPECT_FALSE(gen->describe().empty());
}

// mpirun: process p of P runs the chunks c ≡ p (mod P); the shares sum to one process's tally.
TEST_P(GlpetMcGeneratorContract, ProcessSharesSumToOneProcess) {
  const GlpetScene g = default_ring();
  McOptions opt = g.mc;
  opt.histories = 3 * kMcChunk + 1234;  // shares of 2 and 2 chunks
  opt.seed = 5;
  const VoxelSource source(g.activity_volume);
  McTables t;
  make_tables(t, g.system.scanner, g.system.sigma_t, source);
  auto gen = BackendRegistry<McGenerator>::instance().create(backend());
  const McTally one = gen->tally(t, opt, "", ProcessShare{0, 1});
  const McTally a = gen->tally(t, opt, "", ProcessShare{0, 2}), b = gen->tally(t, opt, "", ProcessShare{1, 2});
  ASSERT_GT(one.detected, 1000);
  EXPECT_GT(a.detected, 0);
  EXPECT_GT(b.detected, 0);
  EXPECT_EQ(a.geometric + b.geometric, one.geometric);
  EXPECT_EQ(a.detected + b.detected, one.detected);
  std::size_t differ = 0;
  for (std::size_t l = 0; l < one.hist.size(); ++l) differ += a.hist[l] + b.hist[l] != one.hist[l];
  EXPECT_EQ(differ, 0u);
}

TEST_P(GlpetMcGeneratorContract, HistoriesOutOfRangeAreRefused) {
  const GlpetScene g = default_ring();
  const VoxelSource source(g.activity_volume);
  McTables t;
  make_tables(t, g.system.scanner, g.system.sigma_t, source);
  auto gen = BackendRegistry<McGenerator>::instance().create(backend());
  McOptions none = g.mc;
  none.histories = 0;
  EXPECT_THROW((void)gen->tally(t, none, "", ProcessShare{0, 1}), InputError);
  McOptions many = g.mc;
  many.histories = kMaxHistories + 1;
  EXPECT_THROW((void)gen->tally(t, many, "", ProcessShare{0, 1}), InputError);
}

}  // namespace tomo::glpet::test
