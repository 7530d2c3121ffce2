// The cuda backends of oat (label gpu; skip without a device): H_int and its transpose vs cpu in
// both interpolation modes, with and without an EIR, the float adjoint identity (exact ≤ 1e-5), the
// transpose's gather at the paper scene's scale, and the FBP vs cpu.
#include <gtest/gtest.h>

#include "cuda/core/device.hpp"
#include "cuda/oat/fbp_device.hpp"
#include "tests/oat/gather_model_checks.hpp"
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

// H_srtᵀ is a gather over tiles of voxels: at the paper scene's scale (0.2 mm voxels 65 mm from the
// transducers, shells 0.075 mm apart, tiles cut by the grid's edge) its image equals the cpu's
// transpose and is the transpose of the cuda forward to fp32.
TEST_F(OatCuda, GatherAtPaperScaleEqualsCpuAndIsMatched) { check_gather_at_paper_scale("cuda", 4, 8); }

TEST_F(OatCuda, ExactFbpEqualsCpu) { check_fbp("cuda", Interpolation::exact, kFbpExactTolerance); }

// The ldg kernel (for tables beyond the texture limits) reads the same table through the
// read-only data cache: the same arithmetic as the texture kernel, so the same image.
TEST_F(OatCuda, LdgFbpEqualsTextureFbp) {
  const OatGeometry g = small_geometry(16, 0.75, 8, 16, 30.0, 10.0);
  OatPhantom ph;
  ph.spheres = {{{1.5, -1.0, 0.5}, 2.5, 1.0, 0.5}};
  const auto p = simulate_pressure(g, ph, Noise{});
  FbpDevice dev(g);
  dev.upload(p);
  dev.run(FbpKernel::texture);
  const std::vector<float> tex = dev.image();
  dev.run(FbpKernel::ldg);
  const std::vector<float> ldg = dev.image();
  const double e = relative_l2(ldg, tex);
  std::printf("cuda fbp ldg vs texture: rel. L2 %.3g\n", e);
  EXPECT_LT(e, 1e-6);
}

TEST(OatCudaRegistry, ReportsAvailabilityConsistently) {
  EXPECT_EQ(BackendRegistry<Model>::instance().available("cuda").ok, tomo::cuda::have_device());
  EXPECT_EQ(BackendRegistry<Fbp>::instance().available("cuda").ok, tomo::cuda::have_device());
}

}  // namespace tomo::oat::test
