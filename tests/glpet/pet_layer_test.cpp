// glpet on the reconstruction layer (compute/pet/, docs/pet.md) over a small ring (12 modules,
// 18 pairs) on Monte-Carlo data of a warm cylinder with a hot sphere, cpu, gl-compute and gl:
// OSEM with 8 angular LOR subsets after 1 iteration is as close to the phantom as ML-EM after 8;
// MAP with the relative difference prior lowers the background noise at ML-EM's hot-sphere
// recovery; the LOR subsets are balanced, spread over the module pairs and partition the LORs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/glpet/mlem.hpp"
#include "compute/glpet/monte_carlo.hpp"
#include "compute/pet/prior.hpp"
#include "tests/glpet/small_system.hpp"
#include "tests/pet/acceptance.hpp"
#include "tests/support/gl_test.hpp"

namespace tomo::glpet {
namespace {

constexpr double kRatio = 4.0, kHotR = 5.0, kWarm = 12.0;
const Vec3 kHot{5.0, -3.0, 0.0};

struct Case {
  SystemModel sys;
  std::vector<float> counts;
  std::vector<double> truth;
  pet::test::Regions regions;
  Case() {
    sys = test::small_ring_system(12, 30.0, Grid3::centred({14, 14, 4}, {2.5, 2.5, 2.5}), {kWarm, kWarm, 20.0});
    Phantom act;
    Shape warm;
    warm.kind = Shape::Kind::Cylinder;
    warm.semi_axes = {kWarm, kWarm, 20.0};
    warm.value = 1.0;
    Shape hot;
    hot.centre = kHot;
    hot.semi_axes = {kHotR, kHotR, kHotR};
    hot.value = kRatio - 1.0;
    act.shapes = {warm, hot};
    const VolumeF activity = act.voxelize(sys.grid, 2);
    McOptions mc;
    mc.histories = 3'000'000;
    mc.seed = 9;
    counts = simulate(sys.scanner, sys.sigma_t, VoxelSource(activity), mc).counts;
    truth.assign(activity.data.begin(), activity.data.end());
    const Grid3& g = sys.grid;
    regions.hot.assign(g.count(), 0);
    regions.background.assign(g.count(), 0);
    for (int k = 0; k < g.dims[2]; ++k)
      for (int j = 0; j < g.dims[1]; ++j)
        for (int i = 0; i < g.dims[0]; ++i) {
          const auto p = g.centre(i, j, k);
          const double d = std::hypot(p[0] - kHot[0], p[1] - kHot[1], p[2] - kHot[2]);
          regions.hot[g.index(i, j, k)] = d < kHotR - 1.5;
          regions.background[g.index(i, j, k)] = std::hypot(p[0], p[1]) < kWarm - 2.5 && d > kHotR + 2.5;
        }
  }
};

const Case& the_case() {
  static const Case c;
  return c;
}

std::vector<double> run(const std::string& backend, const pet::ReconOptions& recon, int iterations) {
  const Case& c = the_case();
  auto op = BackendRegistry<Projector>::instance().create(backend);
  op->configure(c.sys);
  MlemOptions opt;
  opt.iterations = iterations;
  opt.recon = recon;
  opt.prior_backend = pet::prior_backend_for(backend);
  opt.system = &c.sys;
  const auto x = run_mlem(*op, c.counts, {}, opt).x;
  return {x.begin(), x.end()};
}

class GlpetPetLayer : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() != "cpu") (void)tomo::test::gl_context();
  }
};

TEST_P(GlpetPetLayer, OsemEightSubsetsMatchEightMlemIterations) {
  const Case& c = the_case();
  const auto mlem = run(GetParam(), {}, 8);
  const auto osem = run(GetParam(), {.algorithm = pet::Algorithm::osem, .subsets = 8}, 1);
  const double e_mlem = nrmse(mlem, c.truth), e_osem = nrmse(osem, c.truth);
  std::printf("glpet %s: NRMSE ML-EM x8 %.4f, OSEM 8 subsets x1 %.4f (%+.1f %%)\n", GetParam().c_str(), e_mlem, e_osem,
              100 * (e_osem / e_mlem - 1));
  EXPECT_LT(std::abs(e_osem / e_mlem - 1), 0.05);
}

TEST_P(GlpetPetLayer, MapRdpLowersTheNoiseAtTheSameRecovery) {
  const Case& c = the_case();
  const int iterations = 20;
  const auto mlem = run(GetParam(), {}, iterations);
  const pet::RdpParams prior{.beta = 0.03, .gamma = 4.0, .epsilon = 1e-9};
  const auto map = run(GetParam(), {.algorithm = pet::Algorithm::map_rdp, .prior = prior}, iterations);
  const double cv_mlem = pet::test::background_cv(mlem, c.regions), cv_map = pet::test::background_cv(map, c.regions);
  const double rc_mlem = pet::test::hot_recovery(mlem, c.regions, kRatio),
               rc_map = pet::test::hot_recovery(map, c.regions, kRatio);
  std::printf("glpet %s, %d iterations: background CV ML-EM %.4f, MAP-RDP %.4f (%+.1f %%); hot recovery %.4f, %.4f (%+.1f %%)\n",
              GetParam().c_str(), iterations, cv_mlem, cv_map, 100 * (cv_map / cv_mlem - 1), rc_mlem, rc_map,
              100 * (rc_map / rc_mlem - 1));
  EXPECT_LT(cv_map, 0.7 * cv_mlem);
  EXPECT_LT(std::abs(rc_map / rc_mlem - 1), 0.05);
}

INSTANTIATE_TEST_SUITE_P(Backends, GlpetPetLayer, ::testing::Values("cpu", "gl-compute", "gl"),
                         [](const auto& info) {
                           std::string s = info.param;
                           std::replace(s.begin(), s.end(), '-', '_');
                           return s;
                         });

TEST(GlpetLorSubsets, BalancedPartitionOfEveryPair) {
  const Case& c = the_case();
  const std::vector<int> s = lor_subsets(c.sys.scanner, 8);
  ASSERT_EQ(s.size(), c.sys.lor_count());
  std::vector<std::size_t> count(8, 0);
  for (int v : s) ++count[v];
  for (std::size_t n : count) EXPECT_NEAR(double(n), double(s.size()) / 8, 1.0);
  // Every subset holds LORs of both halves of the half turn (four sectors π/4 apart, as many
  // module pairs).
  std::vector<std::vector<int>> pairs(8);
  for (std::size_t p = 0; p < c.sys.scanner.pairs.size(); ++p) {
    const std::size_t at = c.sys.scanner.lor_offset(p);
    for (std::size_t l = 0; l < c.sys.scanner.pairs[p].lor_count(); ++l) pairs[s[at + l]].push_back(int(p));
  }
  for (int k = 0; k < 8; ++k) {
    std::sort(pairs[k].begin(), pairs[k].end());
    const auto distinct = std::unique(pairs[k].begin(), pairs[k].end()) - pairs[k].begin();
    EXPECT_GE(distinct, 4) << "subset " << k;
  }
}

// Subset sums of the ratio back-projection add up to the full one (the subsets partition the LORs).
TEST(GlpetLorSubsets, SubsetSensitivitiesAddUpToTheFullOne) {
  const Case& c = the_case();
  auto op = BackendRegistry<Projector>::instance().create("cpu");
  op->configure(c.sys);
  const std::vector<int> s = lor_subsets(c.sys.scanner, 4);
  const std::vector<float> full = sensitivity_host(*op);
  std::vector<double> sum(full.size(), 0.0);
  for (int k = 0; k < 4; ++k) {
    std::vector<float> mask(s.size(), 0.0f);
    for (std::size_t l = 0; l < s.size(); ++l) mask[l] = s[l] == k;
    const auto sk = back_host(*op, mask);
    for (std::size_t v = 0; v < sum.size(); ++v) sum[v] += sk[v];
  }
  EXPECT_LT(relative_l2(sum, std::vector<double>(full.begin(), full.end())), 1e-6);  // float sums
}

}  // namespace
}  // namespace tomo::glpet
