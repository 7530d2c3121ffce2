// Multi-device glpet ML-EM ([Toth2010] §V) on cpu ranks (host threads): the α solve against a
// hand-computed case, the LOR partition, `exact` equal to single-device ML-EM, and `seed`'s
// combination no worse in data fit than any one share's estimate.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "compute/core/error.hpp"
#include "compute/core/metrics.hpp"
#include "compute/core/phantom.hpp"
#include "compute/glpet/cpu_projector.hpp"
#include "compute/glpet/distributed_mlem.hpp"
#include "compute/glpet/monte_carlo.hpp"
#include "tests/glpet/small_system.hpp"

namespace tomo::glpet {
namespace {

TEST(GlpetMultiDevice, CombinationWeightsOfAHandCase) {
  // min (over α1 + α2 = 1) of 2α1² + α2² − 2α1 − 2α2: KKT 2α1 + λ = 1, α2 + λ = 1 → α = (1/3, 2/3).
  const auto a = combination_weights({2, 0, 0, 1}, {1, 1});
  EXPECT_NEAR(a[0], 1.0 / 3.0, 1e-9);
  EXPECT_NEAR(a[1], 2.0 / 3.0, 1e-9);
  // A 3x3 case: the KKT conditions B α − b = −λ·1 (equal components) and Σα = 1.
  const std::vector<double> B{4, 1, 0.5, 1, 3, 0.2, 0.5, 0.2, 2}, b{1, 2, 0.5};
  const auto c = combination_weights(B, b);
  EXPECT_NEAR(c[0] + c[1] + c[2], 1.0, 1e-12);
  std::vector<double> g(3);
  for (int k = 0; k < 3; ++k) g[k] = B[3 * k] * c[0] + B[3 * k + 1] * c[1] + B[3 * k + 2] * c[2] - b[k];
  EXPECT_NEAR(g[0], g[1], 1e-9);
  EXPECT_NEAR(g[1], g[2], 1e-9);
}

TEST(GlpetMultiDevice, PartitionCoversEveryLorOnceWithTheSameDetectors) {
  SystemModel sys = test::small_system(8, 4.0);
  for (int shares : {1, 2, 3}) {
    const auto parts = partition_lors(sys, shares);
    ASSERT_EQ(parts.size(), std::size_t(shares));
    std::vector<int> seen(sys.lor_count(), 0);
    for (const auto& p : parts) {
      EXPECT_EQ(p.global.size(), p.scanner.lor_count());
      for (std::size_t l : p.global) ++seen.at(l);
      EXPECT_GT(p.nonzeros, 0);
    }
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; })) << shares << " shares";
  }
  // A row block's detector (i, j) is the module's detector (i, block·h + j).
  const auto parts = partition_lors(sys, 2);
  const Module& orig = sys.scanner.pairs[0].modules[0];
  for (const auto& p : parts)
    for (const auto& pair : p.scanner.pairs) {
      const Module& m = pair.modules[0];
      const double t0 = std::round(norm(sub(m.corner(), orig.corner())) / orig.pitch_t);
      const Vec3 a = m.point(1.5 * m.pitch_a, 2.5 * m.pitch_t), b = orig.point(1.5 * m.pitch_a, (2.5 + t0) * m.pitch_t);
      EXPECT_LT(norm(sub(a, b)), 1e-9);
    }
}

struct SmallData {
  SystemModel sys = test::small_system(8, 4.0);
  std::vector<float> y = test::hot_ball_counts(sys, 400'000, 5);
};

// Both splits of the exact mode (LOR shares; voxel slabs with ỹ summed over the ranks).
TEST(GlpetMultiDevice, ExactModeOnTwoRanksEqualsSingleDeviceMlem) {
  SmallData d;
  CpuProjector single;
  single.configure(d.sys);
  MlemOptions o;
  o.iterations = 5;
  const MlemResult ref = run_mlem(single, d.y, {}, o);
  const auto ref_estimate = forward_host(single, ref.x);
  for (MultiSplit split : {MultiSplit::lors, MultiSplit::voxels}) {
    const char* name = split == MultiSplit::lors ? "lors" : "voxels";
    MultiDevice md = (*find_multi_device("cpu"))("2", {});
    DistributedOptions opt;
    opt.mlem = o;
    opt.split = split;
    const DistributedResult res = run_distributed_mlem(md, d.sys, d.y, opt);
    ASSERT_EQ(res.mlem.x.size(), ref.x.size()) << name;
    // The shares' sums are formed in float between ranks: equal within float rounding.
    EXPECT_LT(relative_l2(res.mlem.x, ref.x), 1e-5) << name;
    EXPECT_LT(relative_l2(res.mlem.sensitivity, ref.sensitivity), 1e-6) << name;
    EXPECT_LT(relative_l2(res.mlem.estimate, ref_estimate), 1e-5) << name;
    EXPECT_EQ(res.mlem.masked, ref.masked) << name;
    EXPECT_TRUE(res.alpha.empty()) << name;
    EXPECT_EQ(res.split, split) << name;
    EXPECT_EQ(res.share_nonzeros.size(), split == MultiSplit::lors ? 2u : 0u) << name;
    if (split == MultiSplit::voxels) {  // two slabs that tile the grid
      ASSERT_EQ(res.voxel_ranges.size(), 2u);
      EXPECT_EQ(res.voxel_ranges[0][0], 0u);
      EXPECT_EQ(res.voxel_ranges[0][1], res.voxel_ranges[1][0]);
      EXPECT_EQ(res.voxel_ranges[1][1], d.sys.voxel_count());
    }
  }
}

// auto: the voxels where the scanner has fewer module pairs than ranks (one pair here), the
// LORs otherwise and always in seed mode; the voxel split with seed mode is refused.
TEST(GlpetMultiDevice, SplitChoice) {
  SmallData d;
  auto run = [&](const char* ranks, MultiMode mode, MultiSplit split) {
    MultiDevice md = (*find_multi_device("cpu"))(ranks, {});
    DistributedOptions opt;
    opt.mode = mode;
    opt.split = split;
    opt.mlem.iterations = 1;
    return run_distributed_mlem(md, d.sys, d.y, opt).split;
  };
  ASSERT_EQ(d.sys.scanner.pairs.size(), 1u);
  EXPECT_EQ(run("2", MultiMode::exact, MultiSplit::automatic), MultiSplit::voxels);
  EXPECT_EQ(run("1", MultiMode::exact, MultiSplit::automatic), MultiSplit::lors);
  EXPECT_EQ(run("2", MultiMode::seed, MultiSplit::automatic), MultiSplit::lors);
  EXPECT_THROW(run("2", MultiMode::seed, MultiSplit::voxels), InputError);
}

TEST(GlpetMultiDevice, SeedModeAlphaSumsToOneAndFitsNoWorseThanAnyShare) {
  SmallData d;
  MultiDevice md = (*find_multi_device("cpu"))("3", {});
  DistributedOptions opt;
  opt.mode = MultiMode::seed;
  opt.mlem.iterations = 5;
  const DistributedResult res = run_distributed_mlem(md, d.sys, d.y, opt);
  ASSERT_EQ(res.alpha.size(), 3u);
  EXPECT_NEAR(std::accumulate(res.alpha.begin(), res.alpha.end(), 0.0), 1.0, 1e-12);
  // Any single estimate is a feasible combination (α = e_g): the optimum fits at least as well.
  CpuProjector full;
  full.configure(d.sys);
  auto misfit = [&](const std::vector<float>& x) {
    const auto yt = forward_host(full, x);
    double m = 0;
    for (std::size_t l = 0; l < yt.size(); ++l) m += (double(d.y[l]) - yt[l]) * (double(d.y[l]) - yt[l]);
    return m;
  };
  const double combined = misfit(res.mlem.x);
  EXPECT_NEAR(combined, res.data_misfit, 1e-4 * combined);  // the closed form = a direct forward
  for (const auto& xg : res.partial) EXPECT_LE(combined, misfit(xg) * (1 + 1e-6));
}

// GL ranks on llvmpipe: each rank thread has a context of its own on the software device.
TEST(GlpetMultiDevice, ExactModeOnTwoGlComputeRanksEqualsOneGlComputeRank) {
  SmallData d;
  DistributedOptions opt;
  opt.mlem.iterations = 3;
  MultiDevice one = (*find_multi_device("gl-compute"))("1", {});
  MultiDevice two = (*find_multi_device("gl-compute"))("2", {});
  const auto a = run_distributed_mlem(one, d.sys, d.y, opt);
  const auto b = run_distributed_mlem(two, d.sys, d.y, opt);
  EXPECT_LT(relative_l2(b.mlem.x, a.mlem.x), 1e-5);
  EXPECT_GT(std::accumulate(b.mlem.x.begin(), b.mlem.x.end(), 0.0), 0.0);
  CpuProjector cpu;
  cpu.configure(d.sys);
  MlemOptions o;
  o.iterations = 3;
  EXPECT_LT(relative_l2(b.mlem.x, run_mlem(cpu, d.y, {}, o).x), 1e-3);  // gl-compute vs cpu (docs/glpet.md §5)
}

TEST(GlpetMultiDevice, BadGpuListsAreRefused) {
  EXPECT_THROW(parse_device_spec("two", 2, ""), InputError);
  EXPECT_THROW(parse_device_spec("0,0", 2, ""), InputError);
  EXPECT_THROW(parse_device_spec("0", 2, ""), InputError);  // a count of 0
  EXPECT_THROW(parse_device_spec("3", 2, "this machine has 2"), InputError);
  EXPECT_EQ(parse_device_spec("1,3", -1, ""), (std::vector<int>{1, 3}));
  EXPECT_EQ(parse_device_spec("all", 3, "").size(), 3u);
  EXPECT_EQ(find_multi_device("no-such-backend"), nullptr);
}

}  // namespace
}  // namespace tomo::glpet
