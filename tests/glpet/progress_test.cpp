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

}  // namespace
}  // namespace tomo::glpet
