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

// H_srtᵀ at the paper scene's scale (0.2 mm voxels 65 mm from the transducers, shells 0.075 mm
// apart, the gather's tiles cut by the grid's edge): on 4x8 views the symmetric transpose, on 4x6
// (below) the gather; each image equals the cpu's transpose and is the transpose of the cuda
// forward to fp32.
TEST_F(OatCuda, GatherAtPaperScaleEqualsCpuAndIsMatched) { check_gather_at_paper_scale("cuda", 4, 8); }

// Where the array and the grid are invariant under a quarter turn about z the exact forward and
// transpose run the symmetric kernels (srt_kernels.hpp launch_srt_symmetric and
// launch_srt_symmetric_adjoint: one patch for an orbit of four transducers), elsewhere the general
// forward and the gather; both pairs equal the cpu's double reference and are matched
// (ExactModelEqualsCpuAndIsMatched and the 4x8 paper-scale check run the symmetric pair: their
// geometries pass the check).
TEST_F(OatCuda, SymmetryCheckPicksTheKernels) {
  const ModelOptions o;
  EXPECT_TRUE(ModelDevice(small_geometry(12, 1.0, 4, 8), o).symmetric());
  EXPECT_NE(ModelDevice(small_geometry(12, 1.0, 4, 8), o).describe().find("quarter-turn symmetric"), std::string::npos);
  EXPECT_TRUE(ModelDevice(small_geometry(12, 1.0, 4, 8), o).symmetric_adjoint());
  EXPECT_FALSE(ModelDevice(small_geometry(12, 1.0, 4, 6), o).symmetric());  // views at 60°
  ModelOptions reproducible;
  reproducible.reproducible = true;  // the symmetric forward, the fixed-point gather's transpose
  EXPECT_TRUE(ModelDevice(small_geometry(12, 1.0, 4, 8), reproducible).symmetric());
  EXPECT_FALSE(ModelDevice(small_geometry(12, 1.0, 4, 8), reproducible).symmetric_adjoint());
  EXPECT_NE(ModelDevice(small_geometry(12, 1.0, 4, 8), reproducible).describe().find("fixed-point gather"),
            std::string::npos);
  ModelOptions hardware;
  hardware.interpolation = Interpolation::hardware;  // its forward reads a texture
  EXPECT_FALSE(ModelDevice(small_geometry(12, 1.0, 4, 8), hardware).symmetric());
  OatGeometry g = small_geometry(12, 1.0, 4, 8);
  g.grid.dims = {12, 10, 12};  // not square
  EXPECT_FALSE(ModelDevice(g, o).symmetric());
}

// ModelOptions::reproducible: on a symmetric geometry the transpose is the fixed-point gather, the
// same bits on every call, and the default's symmetric scatter (float atomics, whose order varies)
// equals it to float rounding.
TEST_F(OatCuda, ReproducibleTransposeIsTheSameBitsEveryRun) {
  const OatGeometry g = small_geometry(12, 1.0, 4, 8, 20.0, 5.0, EirKind::gaussian);
  const auto y = random_positive(g.data_size(), 4);
  auto transpose = [&](bool reproducible) {
    ModelOptions o;
    o.reproducible = reproducible;
    ModelDevice d(g, o);
    d.upload_data(y);
    std::vector<std::vector<float>> runs;
    for (int r = 0; r < 3; ++r) {
      d.adjoint();
      runs.push_back(d.alpha());
    }
    return runs;
  };
  const auto fixed = transpose(true), fast = transpose(false);
  EXPECT_EQ(fixed[1], fixed[0]);
  EXPECT_EQ(fixed[2], fixed[0]);
  for (const auto& a : fast) {
    std::printf("symmetric scatter vs the fixed-point gather: max %.3g of the largest\n",
                atomic_order_difference(a, fixed[0]));
    EXPECT_LE(atomic_order_difference(a, fixed[0]), kAtomicOrderTolerance);
  }
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
