// "auto" that lands on the cpu while a GPU backend is built says so in one line, with the
// reasons and, when the work is known, the time to expect.
#include <gtest/gtest.h>

#include <memory>

#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"

namespace tomo {
namespace {

struct FakeOp {};  // an operator interface of its own: a registry nobody else fills

TEST(BackendAuto, FallingBackToTheCpuIsSaidWithTheTimeToExpect) {
  auto& reg = BackendRegistry<FakeOp>::instance();
  reg.add({"cpu", kPriorityCpu, {}, [] { return std::make_unique<FakeOp>(); }});
  reg.add({"cuda", kPriorityCuda, [] { return Availability{false, "no CUDA device"}; },
           [] { return std::make_unique<FakeOp>(); }});
  set_log_level(LogLevel::Info);
  testing::internal::CaptureStderr();
  EXPECT_EQ(reg.resolve("auto", WorkEstimate{.units = 1e9, .cpu_units_per_s = 1e7}), "cpu");
  EXPECT_EQ(reg.resolve("auto", WorkEstimate{.units = 1e9, .cpu_units_per_s = 1e7}), "cpu");  // said once
  EXPECT_EQ(reg.resolve("cpu"), "cpu");  // asked for by name: nothing to say
  const std::string out = testing::internal::GetCapturedStderr();
  EXPECT_EQ(out,
            "[info] backend auto: no GPU backend can run here (cuda: no CUDA device); running on the cpu, "
            "about 2 min of work at the cpu's rate\n");
}

TEST(BackendAuto, DurationsAreWordsOfTheRightUnit) {
  EXPECT_EQ(duration_words(0.2), "about 1 s");
  EXPECT_EQ(duration_words(40), "about 40 s");
  EXPECT_EQ(duration_words(600), "about 10 min");
  EXPECT_EQ(duration_words(9000), "about 2.5 h");
}

}  // namespace
}  // namespace tomo
