// The cuda backends of oat (label gpu; skip without a device): H_int and its transpose vs cpu in
// both interpolation modes, with and without an EIR, the float adjoint identity (exact ≤ 1e-5), the
// transpose's gather at the paper scene's scale, and the FBP vs cpu.
#include <gtest/gtest.h>

#include "cuda/core/device.hpp"
#include "cuda/oat/fbp_device.hpp"
#include "cuda/oat/model_device.hpp"
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

// Where the array and the grid are invariant under a quarter turn about z the exact forward runs
// the symmetric kernel (srt_kernels.hpp launch_srt_symmetric: one patch for an orbit of four
// transducers), elsewhere the general one; both equal the cpu's double reference and are the
// gather's adjoint (ExactModelEqualsCpuAndIsMatched and the paper-scale checks run the symmetric
// one: their geometries pass the check).
TEST_F(OatCuda, SymmetryCheckPicksTheKernels) {
  const ModelOptions o;
  EXPECT_TRUE(ModelDevice(small_geometry(12, 1.0, 4, 8), o).symmetric());
  EXPECT_NE(ModelDevice(small_geometry(12, 1.0, 4, 8), o).describe().find("quarter-turn symmetric"), std::string::npos);
  EXPECT_FALSE(ModelDevice(small_geometry(12, 1.0, 4, 6), o).symmetric());  // views at 60°
  ModelOptions hardware;
  hardware.interpolation = Interpolation::hardware;  // its forward reads a texture
  EXPECT_FALSE(ModelDevice(small_geometry(12, 1.0, 4, 8), hardware).symmetric());
  OatGeometry g = small_geometry(12, 1.0, 4, 8);
  g.grid.dims = {12, 10, 12};  // not square
  EXPECT_FALSE(ModelDevice(g, o).symmetric());
}

// The general kernels on a geometry that fails the check, against the cpu and matched.
TEST_F(OatCuda, GeneralKernelsWithoutTheSymmetryEqualCpuAndAreMatched) {
  const OatGeometry g = small_geometry(12, 1.0, 4, 6, 20.0, 5.0);
  const ModelOptions o;
  const auto x = random_positive(g.grid.count(), 3), y = random_positive(g.data_size(), 4);
  const ModelRun ref = run_model("cpu", g, o, x, y);
  const ModelRun got = run_model("cuda", g, o, x, y);
  const double e_fwd = relative_l2(got.u, ref.u), e_adj = relative_l2(got.alpha, ref.alpha);
  const double mismatch = tomo::test::adjoint_mismatch(tomo::test::inner<double, double>(got.u, y),
                                                       tomo::test::inner<double, double>(x, got.alpha));
  std::printf("cuda general kernels (4x6 views): forward rel. L2 vs cpu %.3g, transpose %.3g, adjoint mismatch %.3g\n",
              e_fwd, e_adj, mismatch);
  EXPECT_LT(e_fwd, kExactTolerance);
  EXPECT_LT(e_adj, kExactTolerance);
  EXPECT_LT(mismatch, kExactAdjoint);
}

// The general forward at the paper scene's scale beside the symmetric one (4x8 views, above).
TEST_F(OatCuda, GeneralGatherAtPaperScaleEqualsCpuAndIsMatched) { check_gather_at_paper_scale("cuda", 4, 6); }

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
