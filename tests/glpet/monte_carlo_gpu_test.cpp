// glpet's CUDA Monte-Carlo against the host's: the same seed gives the same histories (one
// CounterRng stream per history, one copy of the physics in mc_history.hpp), so the histograms
// agree LOR for LOR at 10⁷ histories; and --gpus all deals the chunks without changing a count.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "compute/core/scene.hpp"
#include "compute/glpet/config.hpp"
#include "compute/glpet/monte_carlo.hpp"
#include "cuda/core/device.hpp"

namespace tomo::glpet {
namespace {

GlpetScene default_ring() { return read_glpet_scene(Scene::load_string(embedded_default_scene(), "<default.toml>")); }

// The two generators can differ only where libm's cos, sin and exp (≤ 1 ulp) and CUDA's (≤ 2 ulp)
// round differently AND that moves a detector index across an edge, a voxel floor or a survival
// draw across exp(−∫σ): each needs a value within ~1e-15 relative of a boundary, so the expected
// number of such histories among 10⁷ is far below 1. We allow 4 of them: each moves at most one
// count per pair, so the histograms differ by at most 8 in Σ|Δ| (and 4 in geometric and detected).
constexpr double kFlippedHistories = 4;

TEST(GlpetMonteCarloGpu, CudaHistogramEqualsHostHistogram) {
  if (!cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const GlpetScene g = default_ring();
  ASSERT_GT(g.system.scanner.pairs.size(), 1u);  // a ring: modules shared by several pairs
  bool attenuates = false;
  for (float s : g.system.sigma_t.data) attenuates |= s != 0;
  ASSERT_TRUE(attenuates) << "the default ring's attenuation makes the survival draws part of the comparison";
  McOptions opt = g.mc;
  opt.histories = 10'000'000;
  opt.seed = 20261129;
  const VoxelSource source(g.activity_volume);
  const auto t0 = std::chrono::steady_clock::now();
  const McResult host = simulate(g.system.scanner, g.system.sigma_t, source, opt, {McDevice::host, ""});
  const auto t1 = std::chrono::steady_clock::now();
  const McResult dev = simulate(g.system.scanner, g.system.sigma_t, source, opt, {McDevice::cuda, ""});
  const auto t2 = std::chrono::steady_clock::now();
  std::printf("[ mc-gpu ] host %.1f ms, cuda %.1f ms (with its uploads and the context's first use)\n",
              std::chrono::duration<double, std::milli>(t1 - t0).count(),
              std::chrono::duration<double, std::milli>(t2 - t1).count());
  ASSERT_EQ(host.counts.size(), dev.counts.size());
  double diff = 0;
  std::size_t lors_differing = 0;
  for (std::size_t l = 0; l < host.counts.size(); ++l) {
    diff += std::fabs(double(host.counts[l]) - double(dev.counts[l]));
    lors_differing += host.counts[l] != dev.counts[l];
  }
  std::printf("[ mc-gpu ] %lld histories: host geometric %lld detected %lld, cuda geometric %lld detected %lld; "
              "%zu of %zu LORs differ, sum |diff| %.0f\n",
              (long long)opt.histories, (long long)host.geometric, (long long)host.detected, (long long)dev.geometric,
              (long long)dev.detected, lors_differing, host.counts.size(), diff);
  ASSERT_GT(host.detected, 100'000);
  EXPECT_LT(host.detected, host.geometric);  // survival draws happened
  EXPECT_LE(std::fabs(double(dev.geometric - host.geometric)), kFlippedHistories);
  EXPECT_LE(std::fabs(double(dev.detected - host.detected)), kFlippedHistories);
  EXPECT_LE(diff, 2 * kFlippedHistories);
}

// --gpus N in one process deals this process's chunks to its devices in turn ("all" here): the
// histogram is one device's count for count (the process shares: GlpetMcGeneratorContract).
TEST(GlpetMonteCarloGpu, AllDevicesEqualOneDevice) {
  if (!cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const GlpetScene g = default_ring();
  McOptions opt = g.mc;
  opt.histories = 3 * kMcChunk + 1234;
  opt.seed = 5;
  const VoxelSource source(g.activity_volume);
  const McResult one = simulate(g.system.scanner, g.system.sigma_t, source, opt, {McDevice::cuda, ""});
  const McResult all = simulate(g.system.scanner, g.system.sigma_t, source, opt, {McDevice::cuda, "all"});
  ASSERT_GT(one.detected, 1000);
  EXPECT_EQ(all.detected, one.detected);
  EXPECT_EQ(all.geometric, one.geometric);
  ASSERT_EQ(all.counts.size(), one.counts.size());
  std::size_t differ = 0;
  for (std::size_t l = 0; l < one.counts.size(); ++l) differ += all.counts[l] != one.counts[l];
  EXPECT_EQ(differ, 0u);
}

}  // namespace
}  // namespace tomo::glpet
