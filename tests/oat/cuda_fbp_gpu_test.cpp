// The cuda FBP variants (label gpu; skip without a device): texture, ldg and the shared-memory
// windows with 4 and 8 voxels per thread each equal to the cpu (double) on simulated blurred
// spheres, also where the grid is not a multiple of the 8×8×16 block box, the transducers sit
// close to the grid (curved, wide windows) and a tile is left half full; the out-of-window path
// (forced with an 8-sample window) gives the same image, and so do the batched kernels, bit for
// bit; bench_oat's shared rows all run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/oat/model.hpp"
#include "compute/oat/phantom.hpp"
#include "cuda/core/device.hpp"
#include "cuda/oat/cuda_bench.hpp"
#include "cuda/oat/fbp_device.hpp"
#include "tests/oat/fbp_checks.hpp"
#include "tests/oat/gpu_checks.hpp"
#include "tests/oat/small_geometry.hpp"

namespace tomo::oat::test {

class OatCudaFbp : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  }
};

// Every variant against the cpu and against the texture read; the shared kernel also checked
// (the window range test on: the same image, so no index left its window) and checked with
// 8-entry windows (nearly every read through the out-of-window path).
void check_variants(const FbpCase& c, const char* what) {
  FbpDevice dev(c.g);
  dev.upload(c.p);
  ASSERT_TRUE(dev.available(FbpVariant::shared));
  struct Run {
    const char* name;
    FbpChoice choice;
    bool checked;
    int slot;
  };
  const Run runs[] = {{"texture", {FbpVariant::texture, 8}, false, 0},
                      {"ldg", {FbpVariant::ldg, 8}, false, 0},
                      {"shared-4", {FbpVariant::shared, 4}, false, 0},
                      {"shared-8", {FbpVariant::shared, 8}, false, 0},
                      {"shared-4 checked", {FbpVariant::shared, 4}, true, 0},
                      {"shared-8 checked", {FbpVariant::shared, 8}, true, 0},
                      {"shared-8 checked, 8-entry windows", {FbpVariant::shared, 8}, true, 8},
                      {"shared-4 checked, 8-entry windows", {FbpVariant::shared, 4}, true, 8},
                      {"shared-4 batched", {FbpVariant::shared, 4, true}, false, 0},
                      {"shared-8 batched", {FbpVariant::shared, 8, true}, false, 0}};
  std::vector<double> texture, shared[2];
  for (const Run& r : runs) {
    if (r.checked)
      dev.run_shared(cuda_detail::FbpSharedMode::checked, r.choice.voxels_per_thread, r.slot);
    else
      dev.run(r.choice);
    const std::vector<float> f = dev.image();
    const std::vector<double> img(f.begin(), f.end());
    if (texture.empty()) texture = img;
    const int s = r.choice.voxels_per_thread == 4 ? 0 : 1;
    if (r.choice.variant == FbpVariant::shared && !r.checked && !r.choice.batched) shared[s] = img;
    const double e = relative_l2(img, c.ref), e_tex = relative_l2(img, texture);
    std::printf("%s: cuda fbp %s (window %d): rel. L2 vs cpu %.3g, vs texture %.3g\n", what, r.name,
                r.slot > 0 ? r.slot : dev.shared_shape(8).slot, e, e_tex);
    EXPECT_LT(e, kFbpExactTolerance) << r.name;
    EXPECT_LT(e_tex, 1e-6) << r.name << ": the same formula, fp32 rounding apart (shared runs in samples)";
    if ((r.checked && r.slot == 0) || r.choice.batched) {  // batched: the same operations, the same bits
      double diff = 0;
      for (std::size_t i = 0; i < img.size(); ++i) diff = std::max(diff, std::abs(img[i] - shared[s][i]));
      EXPECT_EQ(diff, 0.0) << r.name << (r.checked ? ": an index left its window" : ": differs from unbatched");
    }
  }
}

TEST_F(OatCudaFbp, EveryVariantEqualsCpu) {
  check_variants(make_fbp_case(small_geometry(16, 0.75, 8, 16, 30.0, 10.0)), "16^3 x 0.75 mm, 8x16 on 30 mm");
}

TEST_F(OatCudaFbp, SharedWindowsHoldOnPartialBoxesAndCloseTransducers) {
  const FbpCase c = make_fbp_case(close_geometry(7, 13));
  FbpDevice dev(c.g);
  EXPECT_EQ(dev.shared_shape(8).slot, 128);
  EXPECT_EQ(dev.shared_shape(8).tile, 16);
  check_variants(c, "13x11x19 x 0.5 mm, 7x13 on 9.13 mm, 19 MHz");
}

TEST_F(OatCudaFbp, BatchedOnlyWithTheExactKernel) {
  FbpDevice dev(small_geometry(16, 0.75, 8, 16, 30.0, 10.0));
  EXPECT_THROW(dev.run_shared(cuda_detail::FbpSharedMode::checked, 8, 0, true), Error);
}

TEST_F(OatCudaFbp, BackendRunsTheDefaultVariant) {
  check_fbp("cuda", Interpolation::exact, kFbpExactTolerance);
  FbpDevice dev(small_geometry(16, 0.75, 8, 16, 30.0, 10.0));
  EXPECT_EQ(dev.best().variant, kDefaultFbpVariant.variant);
}

TEST_F(OatCudaFbp, BenchTimesEverySharedRowAndProbe) {
  const OatGeometry g = small_geometry(16, 1.0, 4, 8, 20.0, 5.0);
  const CudaFbpTimes f = time_cuda_fbp(g, random_positive(g.data_size(), 1), 1);
  for (int s = 0; s < 2; ++s) {
    EXPECT_GT(f.shared_ms[s], 0);
    EXPECT_GT(f.shared_probe_ms[s], 0);
    EXPECT_GT(f.shared_compute_ms[s], 0);
    EXPECT_GT(f.batched_ms[s], 0);
  }
  EXPECT_GE(f.slot, 8);
  EXPECT_FALSE(f.default_variant.empty());
}

}  // namespace tomo::oat::test
