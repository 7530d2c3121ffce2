// The cpu sensitivity image (minutes for a GPU-sized grid) reports its progress: without it a
// cpu fallback printed nothing until ML-EM began.
#include <gtest/gtest.h>

#include <string>

#include "compute/core/runtime_options.hpp"
#include "compute/glpet/cpu_projector.hpp"
#include "tests/glpet/small_system.hpp"

namespace tomo::glpet {
namespace {

TEST(GlpetProgress, CpuSensitivityReportsItsVoxels) {
  const auto sys = test::small_system();  // 16³ voxels
  CpuProjector op;
  op.configure(sys);
  const bool was = runtime_options().progress;
  runtime_options().progress = true;
  ::testing::internal::CaptureStderr();
  (void)sensitivity_host(op);
  const std::string err = ::testing::internal::GetCapturedStderr();
  runtime_options().progress = was;
  EXPECT_NE(err.find("glpet sensitivity (cpu) [####################] 4096/4096"), std::string::npos) << err;
}

// Inside an iteration, the cpu forward and back-projection passes draw their own bars when a
// pass is expected to run long (bar_after_s, 20 s by default); a small grid's passes stay quiet.
TEST(GlpetProgress, LongCpuPassesReportTheirVoxels) {
  const auto sys = test::small_system();  // 16³ voxels: well under a second a pass
  CpuProjector op;
  op.configure(sys);
  auto x = op.make_image(), y = op.make_lors(), t = op.make_lors(), b = op.make_image();
  for (auto& v : dynamic_cast<HostBuffer&>(*x).data) v = 1.0;
  for (auto& v : dynamic_cast<HostBuffer&>(*t).data) v = 1.0;
  const bool was = runtime_options().progress;
  runtime_options().progress = true;
  auto passes = [&] {
    ::testing::internal::CaptureStderr();
    op.forward(*x, *y);
    op.back_ratio(*t, *y, *b, nullptr);
    return ::testing::internal::GetCapturedStderr();
  };
  const std::string quiet = passes();
  op.bar_after_s = 0;
  const std::string shown = passes();
  runtime_options().progress = was;
  EXPECT_EQ(quiet.find("glpet forward"), std::string::npos) << quiet;
  EXPECT_NE(shown.find("glpet forward projection (cpu) [####################] 4096/4096"), std::string::npos) << shown;
  EXPECT_NE(shown.find("glpet back-projection (cpu) [####################] 4096/4096"), std::string::npos) << shown;
}

}  // namespace
}  // namespace tomo::glpet
