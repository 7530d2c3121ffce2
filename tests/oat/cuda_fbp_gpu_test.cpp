// The cuda FBP variants (label gpu; skip without a device): texture, ldg and the shared-memory
// windows with 4 and 8 voxels per thread each equal to the cpu (double) on simulated blurred
// spheres, also where the grid is not a multiple of the 8×8×16 block box, the transducers sit
// close to the grid (curved, wide windows) and a tile is left half full; the out-of-window path
// (forced with an 8-sample window) gives the same image, and so do the batched kernels, bit for
// bit; the lean kernels (8 and 16 voxels per thread, exact and pinned) equal the cpu with the
// same tolerance and their checked twins bit for bit (the unrolled pinned ones the pinned), the
// lean "fast" ones (no double refinement) within their own,
// looser tolerance; the deferred kernels (shared-8x/-16x: fast's loop, the pairs next to a sample
// added exactly by a fix-up pass) within the exact tolerance (1e-5), with list entries recorded,
// and where their lists overflow the pinned kernel's image bit for bit; bench_oat's shared, lean
// and deferred rows all run and state their errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
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

// The lean "fast" kernels (no double refinement, FbpLeanMode::fast) against the cpu: a pair whose
// fp32 k̃ lands on the other side of a sample than the cpu's double k̃ is off by ½w_q·|Δ²p|. On
// these symmetric test scenes many voxel-transducer distances sit at an integer k̃ (within fp32
// error), so the bound is loose: a host emulation of the kernel's fp32 arithmetic gave rel. L2
// 3.4e-7 … 1.1e-3 here depending on the rsqrt rounding (the exact kernels: shared-8 1.6e-7 …
// 2.1e-7, lean 1.7e-7 … 3.5e-7, pinned 2.4e-7 … 3.7e-7).
constexpr double kFbpFastTolerance = 1e-2;

// Every variant against the cpu and against the texture read; the shared kernel also checked
// (the window range test on: the same image, so no index left its window) and checked with
// 8-entry windows (nearly every read through the out-of-window path); the same for the lean kernel.
void check_variants(const FbpCase& c, const char* what) {
  FbpDevice dev(c.g);
  dev.upload(c.p);
  ASSERT_TRUE(dev.available(FbpVariant::shared));
  struct Run {
    const char* name;
    FbpChoice choice;
    bool checked;
    int slot;
    const char* twin;  // the exact run this one must equal bit for bit (null: none)
  };
  const FbpChoice lean8{FbpVariant::shared, 8, false, true}, lean16{FbpVariant::shared, 16, false, true};
  const FbpChoice pin8{FbpVariant::shared, 8, false, true, false, true};
  const FbpChoice pin16{FbpVariant::shared, 16, false, true, false, true};
  const FbpChoice unr8{FbpVariant::shared, 8, false, true, false, true, true};
  const FbpChoice unr16{FbpVariant::shared, 16, false, true, false, true, true};
  const FbpChoice def8{FbpVariant::shared, 8, false, true, false, false, false, true};
  const FbpChoice def16{FbpVariant::shared, 16, false, true, false, false, false, true};
  const Run runs[] = {{"texture", {FbpVariant::texture, 8}, false, 0, nullptr},
                      {"ldg", {FbpVariant::ldg, 8}, false, 0, nullptr},
                      {"shared-4", {FbpVariant::shared, 4}, false, 0, nullptr},
                      {"shared-8", {FbpVariant::shared, 8}, false, 0, nullptr},
                      {"shared-4 checked", {FbpVariant::shared, 4}, true, 0, "shared-4"},
                      {"shared-8 checked", {FbpVariant::shared, 8}, true, 0, "shared-8"},
                      {"shared-8 checked, 8-entry windows", {FbpVariant::shared, 8}, true, 8, nullptr},
                      {"shared-4 checked, 8-entry windows", {FbpVariant::shared, 4}, true, 8, nullptr},
                      {"shared-4 batched", {FbpVariant::shared, 4, true}, false, 0, "shared-4"},
                      {"shared-8 batched", {FbpVariant::shared, 8, true}, false, 0, "shared-8"},
                      {"shared-8l", lean8, false, 0, nullptr},
                      {"shared-16l", lean16, false, 0, nullptr},
                      {"shared-8l checked", lean8, true, 0, "shared-8l"},
                      {"shared-16l checked", lean16, true, 0, "shared-16l"},
                      {"shared-8l checked, 8-entry windows", lean8, true, 8, nullptr},
                      {"shared-16l checked, 8-entry windows", lean16, true, 8, nullptr},
                      {"shared-8p", pin8, false, 0, nullptr},
                      {"shared-16p", pin16, false, 0, nullptr},
                      {"shared-8u", unr8, false, 0, "shared-8p"},
                      {"shared-16u", unr16, false, 0, "shared-16p"},
                      {"shared-8p checked", pin8, true, 0, "shared-8p"},
                      {"shared-16p checked", pin16, true, 0, "shared-16p"},
                      {"shared-8p checked, 8-entry windows", pin8, true, 8, nullptr},
                      {"shared-16p checked, 8-entry windows", pin16, true, 8, nullptr},
                      {"shared-8f", {FbpVariant::shared, 8, false, true, true}, false, 0, nullptr},
                      {"shared-16f", {FbpVariant::shared, 16, false, true, true}, false, 0, nullptr},
                      {"shared-8x", def8, false, 0, nullptr},
                      {"shared-16x", def16, false, 0, nullptr}};
  std::vector<double> texture;
  std::map<std::string, std::vector<double>> images;
  for (const Run& r : runs) {
    if (r.checked && r.choice.lean)
      dev.run_lean(r.choice.pinned ? cuda_detail::FbpLeanMode::pinned_checked : cuda_detail::FbpLeanMode::checked,
                   r.choice.voxels_per_thread, r.slot);
    else if (r.checked)
      dev.run_shared(cuda_detail::FbpSharedMode::checked, r.choice.voxels_per_thread, r.slot);
    else
      dev.run(r.choice);
    const std::vector<float> f = dev.image();
    const std::vector<double> img(f.begin(), f.end());
    if (texture.empty()) texture = img;
    images[r.name] = img;
    if (r.choice.deferred) {  // the fix-up pass ran (no overflow) on pairs it recorded
      EXPECT_FALSE(dev.deferred_overflowed()) << r.name;
      std::printf("%s: cuda fbp %s: %zu deferred list entries (capacity %zu per block)\n", what, r.name,
                  dev.deferred_entries(), dev.deferred_capacity());
    }
    const double e = relative_l2(img, c.ref), e_tex = relative_l2(img, texture);
    std::printf("%s: cuda fbp %s (window %d, eps %.3g / lean %.3g): rel. L2 vs cpu %.3g, vs texture %.3g\n", what,
                r.name, r.slot > 0 ? r.slot : dev.shared_shape(8).slot, dev.params().eps_shared, dev.eps_lean(), e,
                e_tex);
    if (r.choice.fast) {
      EXPECT_LT(e, kFbpFastTolerance) << r.name;
      continue;
    }
    EXPECT_LT(e, kFbpExactTolerance) << r.name;
    EXPECT_LT(e_tex, 1e-6) << r.name << ": the same formula, fp32 rounding apart (shared runs in samples)";
    if (r.twin) {  // checked: no index left its window; batched: the same operations, the same bits
      const std::vector<double>& twin = images.at(r.twin);
      double diff = 0;
      for (std::size_t i = 0; i < img.size(); ++i) diff = std::max(diff, std::abs(img[i] - twin[i]));
      EXPECT_EQ(diff, 0.0) << r.name << " differs from " << r.twin;
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

TEST_F(OatCudaFbp, BackendReadsSharedLeanAndSharedFast) {
  const FbpCase c = make_fbp_case(small_geometry(16, 0.75, 8, 16, 30.0, 10.0));
  for (FbpRead read : {FbpRead::shared, FbpRead::shared_lean, FbpRead::shared_fast}) {
    FbpOptions o;
    o.read = read;
    auto op = BackendRegistry<Fbp>::instance().create("cuda");
    op->configure(c.g, o);
    std::vector<double> img(c.g.grid.count());
    op->reconstruct(c.p, img);
    const double e = relative_l2(img, c.ref);
    std::printf("cuda fbp oat.fbp.read = %s: rel. L2 vs cpu %.3g (%s)\n",
                std::string(enum_name(kFbpReadNames, read)).c_str(), e, op->describe().c_str());
    EXPECT_LT(e, read == FbpRead::shared_fast ? kFbpFastTolerance : kFbpExactTolerance);
    EXPECT_NE(op->describe().find("lean kernel"), std::string::npos);
  }
}

TEST_F(OatCudaFbp, LeanShapesAndShortWindowsOnlyChecked) {
  FbpDevice dev(small_geometry(16, 0.75, 8, 16, 30.0, 10.0));
  EXPECT_THROW(dev.run_lean(cuda_detail::FbpLeanMode::exact, 4), Error);   // 8 or 16 voxels per thread
  EXPECT_THROW(dev.run_lean(cuda_detail::FbpLeanMode::fast, 8, 8), Error);  // windows too short
  EXPECT_GT(dev.eps_lean(), 0.0f);
  EXPECT_LT(dev.eps_lean(), 0.05f);
}

// The deferred kernel on the symmetric scenes (voxels at an integer k̃ from many transducers): list
// entries recorded and the image within 1e-5 of the cpu; with lists of one entry per block they
// overflow, and the pinned kernel's image comes back bit for bit.
void check_deferred(const FbpCase& c, const char* what) {
  FbpDevice dev(c.g);
  dev.upload(c.p);
  for (int v : {8, 16}) {
    dev.set_deferred_capacity(0);
    dev.run_deferred(v);
    const std::vector<float> f = dev.image();
    const double e = relative_l2(std::vector<double>(f.begin(), f.end()), c.ref);
    const std::size_t entries = dev.deferred_entries();
    std::printf("%s: shared-%dx rel. L2 vs cpu %.3g, %zu list entries of %zu per block\n", what, v, e, entries,
                dev.deferred_capacity());
    EXPECT_FALSE(dev.deferred_overflowed());
    EXPECT_GT(entries, 0u) << "no pair next to a sample on a symmetric scene?";
    EXPECT_LT(e, 1e-5) << v;
    dev.set_deferred_capacity(1);
    dev.run_deferred(v);
    const std::vector<float> over = dev.image();
    EXPECT_TRUE(dev.deferred_overflowed());
    dev.run_lean(cuda_detail::FbpLeanMode::pinned, v);
    EXPECT_EQ(over, dev.image()) << "the overflow path runs the pinned kernel";
  }
}

TEST_F(OatCudaFbp, DeferredFixupIsExactAndOverflowFallsBack) {
  check_deferred(make_fbp_case(small_geometry(16, 0.75, 8, 16, 30.0, 10.0)), "16^3 x 0.75 mm, 8x16 on 30 mm");
  check_deferred(make_fbp_case(close_geometry(7, 13)), "13x11x19 x 0.5 mm, 7x13 on 9.13 mm");
}

TEST_F(OatCudaFbp, BackendRunsTheDefaultVariant) {
  check_fbp("cuda", Interpolation::exact, kFbpExactTolerance);
  FbpDevice dev(small_geometry(16, 0.75, 8, 16, 30.0, 10.0));
  EXPECT_EQ(dev.best().variant, kDefaultFbpVariant.variant);
  EXPECT_EQ(dev.best().deferred, kDefaultFbpVariant.deferred);
}

TEST_F(OatCudaFbp, BenchTimesEverySharedRowAndProbe) {
  const FbpCase c = make_fbp_case(small_geometry(16, 0.75, 8, 16, 30.0, 10.0));
  CudaFbpRequest req;
  req.error = [&](const std::vector<float>& img) {
    return relative_l2(std::vector<double>(img.begin(), img.end()), c.ref);
  };
  const CudaFbpTimes f = time_cuda_fbp(c.g, c.p, 1, req);
  for (int s = 0; s < 2; ++s) {
    EXPECT_GT(f.shared_ms[s], 0);
    EXPECT_GT(f.shared_probe_ms[s], 0);
    EXPECT_GT(f.shared_compute_ms[s], 0);
    EXPECT_GT(f.batched_ms[s], 0);
    EXPECT_GT(f.lean_ms[s], 0);
    EXPECT_GT(f.fast_ms[s], 0);
    EXPECT_GT(f.pinned_ms[s], 0);
    EXPECT_GT(f.unrolled_ms[s], 0);
    EXPECT_GT(f.lean_probe_ms[s], 0);
    EXPECT_GT(f.lean_compute_ms[s], 0);
  }
  EXPECT_GE(f.slot, 8);
  EXPECT_FALSE(f.default_variant.empty());
  for (int s = 0; s < 2; ++s) {
    EXPECT_GT(f.deferred_ms[s], 0);
    EXPECT_GT(f.fixup_ms[s], 0);
    EXPECT_FALSE(f.deferred_overflow[s]);
  }
  EXPECT_EQ(f.errors.size(), 16u);  // texture, ldg, shared-4/-8/-4b/-8b, shared-{8,16}{l,p,u,f,x}
  for (const auto& [name, e] : f.errors) {
    std::printf("bench error path: %s rel. L2 vs cpu %.3g\n", name.c_str(), e);
    EXPECT_LT(e, name.back() == 'f' ? kFbpFastTolerance : kFbpExactTolerance) << name;
  }
}

}  // namespace tomo::oat::test
