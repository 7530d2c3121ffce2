// strip's cuda generator against the cpu simulator (label gpu; skips without a CUDA device): the
// same seed gives the same events. Both run simulator_math.hpp in double precision without fused
// multiply-adds; only libm differs (CUDA's tan, sin, cos within 2 ulp, log 1 ulp; glibc's within
// 1). A few ulps in a double change its float32 rounding when it lies that close to a rounding
// boundary (~1e-8 per value), and flip a hit test only for a hit within ~1e-13 mm of a strip end,
// after which the slot's draws differ: ~0.1 of 1.7e7 events are expected to differ beyond one
// float ulp. The test allows 1 in 10⁶ (17), all other events within one float ulp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/strip/simulator.hpp"

namespace tomo::strip {
namespace {

bool available() { return BackendRegistry<PhantomGenerator>::instance().available("cuda").ok; }

bool within_one_ulp(float a, float b) { return a == b || std::nextafter(a, b) == b; }

TEST(StripSimulatorCuda, SameSeedSameEventsAsTheCpu) {
  if (!available()) GTEST_SKIP() << "skipped: no CUDA device";
  const StripGeometry g = StripGeometry::covering(130.0, 300.0, 4.0);
  const Resolution res{10.0, 40.0};
  // More than the generator's first batch (2^16) and one full batch (2^24) after it: three launches.
  const std::uint64_t count = 17000000;
  SimulationStats cpu_stats, gpu_stats;
  const auto cpu = simulate_phantom(g, res, StripPhantom::appendix_a(), count, 5, &cpu_stats);
  auto gen = BackendRegistry<PhantomGenerator>::instance().create("cuda");
  const auto gpu = gen->simulate(g, res, StripPhantom::appendix_a(), count, 5, &gpu_stats);
  ASSERT_EQ(gpu.size(), count);
  std::uint64_t exact = 0, ulp = 0, other = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const Event &a = cpu[i], &b = gpu[i];
    if (a.z_u == b.z_u && a.z_d == b.z_d && a.dl == b.dl)
      ++exact;
    else if (within_one_ulp(a.z_u, b.z_u) && within_one_ulp(a.z_d, b.z_d) && within_one_ulp(a.dl, b.dl))
      ++ulp;
    else
      ++other;
  }
  std::printf("cuda vs cpu, %llu events: %llu equal, %llu within one float ulp, %llu otherwise; emissions %llu vs %llu, "
              "samples %llu vs %llu\n",
              (unsigned long long)count, (unsigned long long)exact, (unsigned long long)ulp, (unsigned long long)other,
              (unsigned long long)gpu_stats.emissions, (unsigned long long)cpu_stats.emissions,
              (unsigned long long)gpu_stats.samples, (unsigned long long)cpu_stats.samples);
  EXPECT_LE(other, count / 1000000);
  EXPECT_GE(exact, count - count / 100000);
  // A slot whose draws differ takes at most 16000 samples (the slot's bound) on either side.
  const double slack = 16000.0 * double(other);
  EXPECT_LE(std::abs(double(gpu_stats.samples) - double(cpu_stats.samples)), slack);
  EXPECT_LE(std::abs(double(gpu_stats.emissions) - double(cpu_stats.emissions)), slack);
  EXPECT_EQ(gpu_stats.detected, count);
  EXPECT_NE(gen->describe().find("CUDA"), std::string::npos);
}

TEST(StripSimulatorCuda, PhantomTheStripsCannotSeeStopsWithTheCpusMessage) {
  if (!available()) GTEST_SKIP() << "skipped: no CUDA device";
  const StripGeometry g = StripGeometry::covering(130.0, 300.0, 4.0);
  // A sliver beyond a corner of the field of view: no line through it meets both strips.
  StripPhantom sliver;
  sliver.rows = {{0.5 * g.L + 5.0 - 1e-7, g.R + 5.0 - 1e-7, 5.00001, 5.00001, 0.0, 1.0}};
  auto gen = BackendRegistry<PhantomGenerator>::instance().create("cuda");
  std::string cpu_error, gpu_error;
  try {
    simulate_phantom(g, {10.0, 40.0}, sliver, 1000000, 1);
  } catch (const InputError& e) {
    cpu_error = e.what();
  }
  try {
    gen->simulate(g, {10.0, 40.0}, sliver, 1000000, 1, nullptr);
  } catch (const InputError& e) {
    gpu_error = e.what();
  }
  EXPECT_NE(cpu_error.find("field of view"), std::string::npos) << cpu_error;
  EXPECT_EQ(gpu_error, cpu_error);
}

}  // namespace
}  // namespace tomo::strip
