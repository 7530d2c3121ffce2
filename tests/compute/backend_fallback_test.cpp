// "auto" that lands on the cpu while a GPU backend is built says so in one line, with the
// reasons and, when the work is known, the time to expect.
#include <gtest/gtest.h>

#include <memory>

#include <omp.h>

#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"

namespace tomo {
namespace {

struct FakeOp {};  // an operator interface of its own: a registry nobody else fills

TEST(BackendAuto, FallingBackToTheCpuIsSaidWithTheTimeToExpect) {
  auto& reg = BackendRegistry<FakeOp>::instance();
  auto make = [] { return std::make_unique<FakeOp>(); };
  reg.add({"cpu", kPriorityCpu, {}, make});
  reg.add({"cuda", kPriorityCuda,
           [] { return Availability{false, "no CUDA device (cudaErrorInsufficientDriver: driver too old)"}; }, make});
  reg.add({"gl", kPriorityGlRaster, [] { return Availability{true, {}, /*software=*/true}; }, make});
  reg.add({"gl-compute", kPriorityGlCompute, [] { return Availability{true, {}, /*software=*/true}; }, make});
  set_log_level(LogLevel::Info);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(4);
  testing::internal::CaptureStderr();
  // 1.2e10 units at 1e7 per core-second on 4 cores: 300 s.
  EXPECT_EQ(reg.resolve("auto", WorkEstimate{.units = 1.2e10, .cpu_units_per_core_s = 1e7}), "cpu");
  EXPECT_EQ(reg.resolve("auto", WorkEstimate{.units = 1.2e10, .cpu_units_per_core_s = 1e7}), "cpu");  // said once
  EXPECT_EQ(reg.resolve("cpu"), "cpu");  // asked for by name: nothing to say
  const std::string out = testing::internal::GetCapturedStderr();
  omp_set_num_threads(threads);
  EXPECT_EQ(out,
            "[info] backend auto chose the cpu: no GPU backend can run here (cuda: no CUDA device; gl, gl-compute: "
            "emulated on the cpu); expect about 5 min on this machine's 4 cores\n");
}

TEST(BackendAuto, TheTimeIsTheWorkOverTheCoresRate) {
  EXPECT_DOUBLE_EQ(cpu_seconds({.units = 6e9, .cpu_units_per_core_s = 1e8}, 2), 30.0);
  EXPECT_EQ(cpu_seconds({.units = 6e9}, 2), 0.0);  // rate unknown: no estimate
  EXPECT_EQ(cpu_seconds({}, 2), 0.0);
}

TEST(BackendAuto, DurationsAreWordsOfTheRightUnit) {
  EXPECT_EQ(duration_words(0.2), "about 1 s");
  EXPECT_EQ(duration_words(40), "about 40 s");
  EXPECT_EQ(duration_words(600), "about 10 min");
  EXPECT_EQ(duration_words(9000), "about 2.5 h");
}

}  // namespace
}  // namespace tomo
