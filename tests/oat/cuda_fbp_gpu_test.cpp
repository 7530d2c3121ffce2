// The cuda FBP's kernels (label gpu; skip without a device): deferred (the default), pinned (its
// fallback on list overflow), texture and ldg (where a block's window does not fit shared memory)
// each equal to the cpu (double) on simulated blurred spheres, also where the grid is not a
// multiple of the 8×8×16 block box, the transducers sit close to the grid (curved, wide windows)
// and a tile is left half full, and to the texture kernel to fp32 rounding; the deferred kernel
// records list entries on the symmetric scenes and, where its lists overflow, returns the pinned
// kernel's image bit for bit; the backend runs the kernel FbpDevice::choose() names for each
// oat.fbp.read.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/oat/model.hpp"
#include "cuda/core/device.hpp"
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

constexpr FbpKernel kKernels[] = {FbpKernel::texture, FbpKernel::ldg, FbpKernel::pinned, FbpKernel::deferred};

// Every kernel against the cpu and against the texture kernel.
void check_kernels(const FbpCase& c, const char* what) {
  FbpDevice dev(c.g);
  dev.upload(c.p);
  for (FbpKernel k : kKernels) ASSERT_TRUE(dev.available(k)) << kernel_name(k);
  std::vector<double> texture;
  for (FbpKernel k : kKernels) {
    dev.run(k);
    const std::vector<float> f = dev.image();
    const std::vector<double> img(f.begin(), f.end());
    if (texture.empty()) texture = img;
    if (k == FbpKernel::deferred) {
      EXPECT_FALSE(dev.deferred_overflowed());
      std::printf("%s: cuda fbp deferred: %zu list entries (capacity %zu per block)\n", what, dev.deferred_entries(),
                  dev.deferred_capacity());
    }
    const double e = relative_l2(img, c.ref), e_tex = relative_l2(img, texture);
    std::printf("%s: cuda fbp %s (window %d, eps %.3g): rel. L2 vs cpu %.3g, vs texture %.3g\n", what,
                std::string(kernel_name(k)).c_str(), dev.window_slot(), dev.eps_lean(), e, e_tex);
    EXPECT_LT(e, kFbpExactTolerance) << kernel_name(k);
    EXPECT_LT(e_tex, 1e-6) << kernel_name(k) << ": the same formula, fp32 rounding apart (shared runs in samples)";
  }
}

TEST_F(OatCudaFbp, EveryKernelEqualsCpu) {
  check_kernels(make_fbp_case(small_geometry(16, 0.75, 8, 16, 30.0, 10.0)), "16^3 x 0.75 mm, 8x16 on 30 mm");
}

TEST_F(OatCudaFbp, SharedWindowsHoldOnPartialBoxesAndCloseTransducers) {
  const FbpCase c = make_fbp_case(close_geometry(7, 13));
  FbpDevice dev(c.g);
  EXPECT_EQ(dev.window_slot(), 128);
  check_kernels(c, "13x11x19 x 0.5 mm, 7x13 on 9.13 mm, 19 MHz");
}

TEST_F(OatCudaFbp, BackendReadsEachKernel) {
  const FbpCase c = make_fbp_case(small_geometry(16, 0.75, 8, 16, 30.0, 10.0));
  FbpDevice dev(c.g);
  EXPECT_EQ(dev.choose(), FbpKernel::deferred);
  EXPECT_EQ(dev.choose(FbpRead::shared), FbpKernel::deferred);
  EXPECT_EQ(dev.choose(FbpRead::texture), FbpKernel::texture);
  EXPECT_EQ(dev.choose(FbpRead::ldg), FbpKernel::ldg);
  for (FbpRead read : {FbpRead::automatic, FbpRead::shared, FbpRead::texture, FbpRead::ldg}) {
    FbpOptions o;
    o.read = read;
    auto op = BackendRegistry<Fbp>::instance().create("cuda");
    op->configure(c.g, o);
    std::vector<double> img(c.g.grid.count());
    op->reconstruct(c.p, img);
    const double e = relative_l2(img, c.ref);
    std::printf("cuda fbp oat.fbp.read = %s: rel. L2 vs cpu %.3g (%s)\n",
                std::string(enum_name(kFbpReadNames, read)).c_str(), e, op->describe().c_str());
    EXPECT_LT(e, kFbpExactTolerance);
  }
}

TEST_F(OatCudaFbp, NoSharedKernelWhereTheWindowDoesNotFit) {
  // Voxels of 40 mm at 20 MHz: a block's window would exceed 2048 samples.
  OatGeometry g = small_geometry(4, 40.0, 2, 4, 400.0, 20.0);
  FbpDevice dev(g);
  EXPECT_EQ(dev.window_slot(), 0);
  EXPECT_FALSE(dev.available(FbpKernel::deferred));
  EXPECT_EQ(dev.choose(), FbpKernel::texture);
  EXPECT_THROW(dev.choose(FbpRead::shared), UnavailableError);
}

// The deferred kernel on the symmetric scenes (voxels at an integer k̃ from many transducers): list
// entries recorded and the image within 1e-5 of the cpu; with lists of one entry per block they
// overflow, and the pinned kernel's image comes back bit for bit.
void check_deferred(const FbpCase& c, const char* what) {
  FbpDevice dev(c.g);
  dev.upload(c.p);
  dev.run(FbpKernel::deferred);
  const std::vector<float> f = dev.image();
  const double e = relative_l2(std::vector<double>(f.begin(), f.end()), c.ref);
  const std::size_t entries = dev.deferred_entries();
  std::printf("%s: deferred rel. L2 vs cpu %.3g, %zu list entries of %zu per block\n", what, e, entries,
              dev.deferred_capacity());
  EXPECT_FALSE(dev.deferred_overflowed());
  EXPECT_GT(entries, 0u) << "no pair next to a sample on a symmetric scene?";
  EXPECT_LT(e, 1e-5);
  FbpDevice small(c.g, {.list_capacity = 1});
  small.upload(c.p);
  small.run(FbpKernel::deferred);
  const std::vector<float> over = small.image();
  EXPECT_TRUE(small.deferred_overflowed());
  small.run(FbpKernel::pinned);
  EXPECT_EQ(over, small.image()) << "the overflow path runs the pinned kernel";
}

TEST_F(OatCudaFbp, DeferredFixupIsExactAndOverflowFallsBack) {
  check_deferred(make_fbp_case(small_geometry(16, 0.75, 8, 16, 30.0, 10.0)), "16^3 x 0.75 mm, 8x16 on 30 mm");
  check_deferred(make_fbp_case(close_geometry(7, 13)), "13x11x19 x 0.5 mm, 7x13 on 9.13 mm");
}

TEST_F(OatCudaFbp, BackendRunsTheDefaultKernel) {
  check_fbp("cuda", Interpolation::exact, kFbpExactTolerance);
  auto op = BackendRegistry<Fbp>::instance().create("cuda");
  op->configure(small_geometry(16, 0.75, 8, 16, 30.0, 10.0), FbpOptions{});
  EXPECT_NE(op->describe().find("deferred to an exact fix-up pass"), std::string::npos) << op->describe();
}

}  // namespace tomo::oat::test
