// glpet on the reconstruction layer (compute/pet/, docs/pet.md) over a small ring (12 modules,
// 18 pairs) on Monte-Carlo data of a warm cylinder with a hot sphere, cpu, gl-compute and gl:
// OSEM with 8 subsets of module pairs after 1 iteration is as close to the phantom as ML-EM after 8;
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

// `own_projectors`: each subset of module pairs on a projector of its own (what a run does).
std::vector<double> run(const std::string& backend, const pet::ReconOptions& recon, int iterations,
                        bool own_projectors = true) {
  const Case& c = the_case();
  auto op = BackendRegistry<Projector>::instance().create(backend);
  op->configure(c.sys);
  MlemOptions opt;
  opt.iterations = iterations;
  opt.recon = recon;
  opt.prior_backend = pet::prior_backend_for(backend);
  opt.system = &c.sys;
  if (own_projectors)
    opt.make_projector = [&](const SystemModel& m) {
      auto p = BackendRegistry<Projector>::instance().create(backend);
      p->configure(m);
      return p;
    };
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

// Subsets of module pairs on projectors of their own (each pass over the subset's pairs only)
// run the same steps as masked passes over every LOR: the same image up to float sums.
TEST_P(GlpetPetLayer, PairSubsetsOnTheirOwnProjectorsRunTheSameSteps) {
  for (const pet::ReconOptions& o :
       {pet::ReconOptions{.algorithm = pet::Algorithm::osem, .subsets = 4},
        pet::ReconOptions{.algorithm = pet::Algorithm::map_rdp, .subsets = 4,
                          .prior = {.beta = 0.03, .gamma = 4.0, .epsilon = 1e-9}}}) {
    const auto masked = run(GetParam(), o, 2, false), own = run(GetParam(), o, 2, true);
    EXPECT_LT(relative_l2(own, masked), 2e-5) << pet::algorithm_title(o.algorithm);
    EXPECT_GT(nrmse(own, the_case().truth), 0.0);
  }
}

TEST_P(GlpetPetLayer, MapRdpLowersTheNoiseAtTheSameRecovery) {
  const Case& c = the_case();
  const int iterations = 20;
  const auto mlem = run(GetParam(), {}, iterations);
  const pet::RdpParams prior{.beta = 0.04, .gamma = 4.0, .epsilon = 1e-9};
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

// With at least as many module pairs as subsets, a subset is whole pairs: 18 pairs into 8
// subsets of 2 or 3, the pairs of a subset far apart in angle.
TEST(GlpetLorSubsets, WholePairsSpreadInAngle) {
  const Case& c = the_case();
  const Scanner& sc = c.sys.scanner;
  ASSERT_EQ(sc.pairs.size(), 18u);
  const std::vector<int> by_pair = pair_subsets(sc, 8);
  ASSERT_EQ(by_pair.size(), 18u);
  const std::vector<int> s = lor_subsets(sc, 8);
  ASSERT_EQ(s.size(), c.sys.lor_count());
  std::vector<int> pairs(8, 0);
  for (std::size_t p = 0; p < sc.pairs.size(); ++p) {
    ++pairs[by_pair[p]];
    const std::size_t at = sc.lor_offset(p);
    for (std::size_t l = 0; l < sc.pairs[p].lor_count(); ++l) EXPECT_EQ(s[at + l], by_pair[p]);
  }
  for (int n : pairs) EXPECT_TRUE(n == 2 || n == 3) << n;
  // The pairs of a subset spread over the half turn: in each subset two of them lie at least
  // 60° apart in azimuth (of the line between the module centres).
  auto phi = [&](std::size_t i) {
    const Vec3 d = sub(sc.pairs[i].modules[1].centre, sc.pairs[i].modules[0].centre);
    return std::fmod(std::atan2(d[1], d[0]) + 2 * M_PI, M_PI);
  };
  for (int k = 0; k < 8; ++k) {
    double widest = 0;
    for (std::size_t p = 0; p < sc.pairs.size(); ++p)
      for (std::size_t q = p + 1; q < sc.pairs.size(); ++q)
        if (by_pair[p] == k && by_pair[q] == k) {
          const double a = std::abs(phi(p) - phi(q));
          widest = std::max(widest, std::min(a, M_PI - a));
        }
    EXPECT_GT(widest, 60.0 * M_PI / 180.0) << "subset " << k;
  }
  // A subset's system model holds its pairs only.
  const SystemModel m = subset_system(c.sys, by_pair, 0);
  EXPECT_EQ(int(m.scanner.pairs.size()), pairs[0]);
}

// With fewer module pairs than subsets, LORs are interleaved by angle over every pair.
TEST(GlpetLorSubsets, BalancedPartitionOfEveryPair) {
  const Case& c = the_case();
  const int S = 32;  // more than the 18 pairs
  EXPECT_TRUE(pair_subsets(c.sys.scanner, S).empty());
  const std::vector<int> s = lor_subsets(c.sys.scanner, S);
  ASSERT_EQ(s.size(), c.sys.lor_count());
  std::vector<std::size_t> count(S, 0);
  for (int v : s) ++count[v];
  for (std::size_t n : count) EXPECT_NEAR(double(n), double(s.size()) / S, 1.0);
  // Every subset holds LORs of several module pairs (four sectors π/4 apart).
  std::vector<std::vector<int>> pairs(S);
  for (std::size_t p = 0; p < c.sys.scanner.pairs.size(); ++p) {
    const std::size_t at = c.sys.scanner.lor_offset(p);
    for (std::size_t l = 0; l < c.sys.scanner.pairs[p].lor_count(); ++l) pairs[s[at + l]].push_back(int(p));
  }
  for (int k = 0; k < S; ++k) {
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
