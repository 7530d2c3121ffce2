// The cuda backends of oat (label gpu; skip without a device): H_int and its transpose vs cpu in
// both interpolation modes, with and without an EIR, the float adjoint identity (exact ≤ 1e-5),
// and the FBP vs cpu in both modes.
#include <gtest/gtest.h>

#include "cuda/core/device.hpp"
#include "tests/oat/gpu_checks.hpp"

namespace tomo::oat::test {

class OatCuda : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_F(OatCuda, ExactModelEqualsCpuAndIsMatched) { check_model("cuda", Interpolation::exact, EirKind::none); }

TEST_F(OatCuda, ExactModelWithEirEqualsCpu) { check_model("cuda", Interpolation::exact, EirKind::gaussian); }

TEST_F(OatCuda, HardwareModelWithinItsTolerance) { check_model("cuda", Interpolation::hardware, EirKind::none); }

TEST_F(OatCuda, ExactFbpEqualsCpu) { check_fbp("cuda", Interpolation::exact, kFbpExactTolerance); }

TEST_F(OatCuda, HardwareFbpWithinItsTolerance) { check_fbp("cuda", Interpolation::hardware, kFbpHardwareTolerance); }

TEST(OatCudaRegistry, ReportsAvailabilityConsistently) {
  EXPECT_EQ(BackendRegistry<Model>::instance().available("cuda").ok, tomo::cuda::have_device());
  EXPECT_EQ(BackendRegistry<Fbp>::instance().available("cuda").ok, tomo::cuda::have_device());
}

}  // namespace tomo::oat::test
