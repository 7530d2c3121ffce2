// cuFFT FDK pre-processing vs the CPU FdkFilter (FFTW, double; label gpu): analytic Shepp–Logan
// line integrals on a 64×48 detector, 20 projections, each window, with/without Parker and cosine
// weights: float GPU result within 1e-5 relative L2 of the CPU's (double-computed, float-stored),
// with the weights fused into cuFFT's kernels as callbacks and in kernels of their own.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/metrics.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/nvrtc_cache.hpp"
#include "cuda/fdk/cufft_filter.hpp"
#include "compute/fdk/filter.hpp"
#include "compute/fdk/simulate.hpp"
#include "tests/support/env_var.hpp"
#include "tests/support/temp_dir.hpp"

using namespace tomo::fdk;
using tomo::relative_l2;

namespace {

CArmGeometry small_geometry() {
  CArmGeometry g;  // RabbitCT distances and 200° arc, 20 views of 64×48 at 4.8 mm
  g.projections = 20;
  g.sx = 64;
  g.sy = 48;
  g.pixel_mm = 4.8;
  return g;
}

const std::vector<float>& raw_data() {
  static const std::vector<float> raw = simulate_projections(shepp_logan_3d(), small_geometry());
  return raw;
}

std::vector<float> cpu_filtered(const CArmGeometry& g, const FilterOptions& o) {
  const FdkFilter f(g, o);
  const std::size_t image = static_cast<std::size_t>(g.sx) * g.sy;
  std::vector<float> out(image * g.projections);
  for (int n = 0; n < g.projections; ++n) f.apply(n, raw_data().data() + n * image, out.data() + n * image);
  return out;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

class CufftFilterWindows : public ::testing::TestWithParam<RampWindow> {};

TEST_P(CufftFilterWindows, MatchesCpuFilter) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const CArmGeometry g = small_geometry();
  FilterOptions o;
  o.window = GetParam();
  const std::vector<float> ref = cpu_filtered(g, o);
  std::vector<std::vector<float>> both;
  for (const FilterPasses passes : {FilterPasses::fused, FilterPasses::separate}) {
    std::vector<float> gpu(ref.size());
    CufftFilter f(g, o, 6, passes);  // 6 does not divide 20: a partial last batch and two plan sizes
    // The CUDA 13 machine has NVRTC's LTO-IR and cuFFT's JIT callbacks: no fallback there.
    ASSERT_EQ(f.passes(), passes);
    f.apply_host(0, g.projections, raw_data().data(), gpu.data());
    const double err = relative_l2(gpu, ref);
    RecordProperty(passes == FilterPasses::fused ? "relative_l2_fused" : "relative_l2_separate", std::to_string(err));
    EXPECT_LT(err, 1e-5) << ramp_window_name(o.window);
    // Reused plans give the same numbers again.
    std::vector<float> again(ref.size());
    f.apply_host(0, g.projections, raw_data().data(), again.data());
    EXPECT_EQ(again, gpu);
    both.push_back(std::move(gpu));
  }
  // The same float arithmetic around the transforms: the two differ by cuFFT's kernels only.
  EXPECT_LT(relative_l2(both[0], both[1]), 1e-6);
}

TEST(FdkCufft, FusedFiltersInPlaceAndFollowsTheIndex) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const CArmGeometry g = small_geometry();
  const FilterOptions o;  // Parker weights: they differ per projection index
  const std::vector<float> ref = cpu_filtered(g, o);
  const std::size_t image = static_cast<std::size_t>(g.sx) * g.sy;
  const int n0 = 5, count = 11;
  CufftFilter f(g, o, 4);
  ASSERT_EQ(f.passes(), FilterPasses::fused);
  std::vector<float> buf(raw_data().begin() + n0 * image, raw_data().begin() + (n0 + count) * image);
  f.apply_host(n0, count, buf.data(), buf.data());
  const std::vector<float> ref_part(ref.begin() + n0 * image, ref.begin() + (n0 + count) * image);
  EXPECT_LT(relative_l2(buf, ref_part), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(FdkCufft, CufftFilterWindows,
                         ::testing::Values(RampWindow::RamLak, RampWindow::SheppLogan, RampWindow::Hann),
                         [](const auto& info) {
                           switch (info.param) {
                             case RampWindow::RamLak: return std::string("RamLak");
                             case RampWindow::SheppLogan: return std::string("SheppLogan");
                             default: return std::string("Hann");
                           }
                         });

TEST(FdkCufft, UniformWeightsNoCosineAndSubrange) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const CArmGeometry g = small_geometry();
  FilterOptions o;
  o.parker = false;
  o.cosine = false;
  const std::vector<float> ref = cpu_filtered(g, o);
  const std::size_t image = static_cast<std::size_t>(g.sx) * g.sy;
  // Projections 7..15 through the one-shot function: the column weights follow the index n0.
  const int n0 = 7, count = 9;
  std::vector<float> gpu(image * count);
  cuda_filter_projections(g, o, n0, count, raw_data().data() + n0 * image, gpu.data());
  const std::vector<float> ref_part(ref.begin() + n0 * image, ref.begin() + (n0 + count) * image);
  EXPECT_LT(relative_l2(gpu, ref_part), 1e-5);
}

TEST(FdkCufft, RejectsProjectionsOutsideTheScan) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const CArmGeometry g = small_geometry();
  CufftFilter f(g);
  std::vector<float> buf(static_cast<std::size_t>(g.sx) * g.sy * 2);
  EXPECT_THROW(f.apply_host(g.projections - 1, 2, buf.data(), buf.data()), tomo::Error);
}

// The first fused filter of a process: the callbacks' LTO-IR comes from the NVRTC disk cache
// ($TOMORASTER_CACHE_DIR) when an earlier process left it there, else NVRTC compiles and stores
// it. Prints that set-up time (docs/perf/fdk.md: a cold and a warm cache) and NVRTC's part alone.
TEST(FdkCufft, FirstFusedSetUpTakesTheCallbacksFromTheNvrtcCache) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const CArmGeometry g = small_geometry();
  const FilterOptions o;
  const auto c0 = tomo::cuda::nvrtc_cache_counters();
  auto t0 = std::chrono::steady_clock::now();
  CufftFilter f(g, o, 8);
  const double setup_ms = ms_since(t0);
  const auto c1 = tomo::cuda::nvrtc_cache_counters();
  ASSERT_EQ(f.passes(), FilterPasses::fused);
  const std::vector<float> ref = cpu_filtered(g, o);
  std::vector<float> gpu(ref.size());
  f.apply_host(0, g.projections, raw_data().data(), gpu.data());
  EXPECT_LT(relative_l2(gpu, ref), 1e-5);
  const long hits = c1.hits - c0.hits, misses = c1.misses - c0.misses, stored = c1.stored - c0.stored;
  const char* source = "no disk cache";
  if (!tomo::cuda::nvrtc_cache_dir().empty()) {
    // One read that hit, or one miss that compiled and stored (none: an earlier test of this
    // process made a fused filter already).
    EXPECT_TRUE((hits == 1 && misses == 0 && stored == 0) || (hits == 0 && misses == 1 && stored <= 1) ||
                (hits == 0 && misses == 0))
        << hits << " hits, " << misses << " misses, " << stored << " stored";
    source = hits == 1 ? "read from the NVRTC cache" : misses == 1 ? "compiled by NVRTC" : "made earlier in this process";
  }
  // The rest of the set-up: cuFFT's JIT link of new plans (another padded length; the LTO-IR is
  // already in this process), and plans of that length without callbacks.
  CArmGeometry wider = g;
  wider.sx = 100;
  t0 = std::chrono::steady_clock::now();
  const CufftFilter jit(wider, o, 8);
  const double jit_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  const CufftFilter plain(wider, o, 8, FilterPasses::separate);
  const double plain_ms = ms_since(t0);
  EXPECT_NE(jit.padded_size(), f.padded_size());
  EXPECT_EQ(jit.passes(), FilterPasses::fused);
  // NVRTC's part alone, in a cache of its own: a compile, then a read.
  int device = 0, major = 0, minor = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), cudaSuccess);
  tomo::test::TempDir tmp("fdk-callbacks");
  tomo::test::NvrtcCacheIn cache(tmp.dir.string());
  t0 = std::chrono::steady_clock::now();
  const std::vector<char> compiled = cufft_callbacks_ltoir(major, minor);
  const double compile_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  const std::vector<char> read = cufft_callbacks_ltoir(major, minor);
  const double read_ms = ms_since(t0);
  EXPECT_EQ(read, compiled);
  EXPECT_LT(read_ms, compile_ms);
  std::printf("fdk cuFFT filter, first fused set-up: %.1f ms (callbacks %s); NVRTC LTO-IR of the callbacks: "
              "compile %.1f ms, cache read %.2f ms (%zu bytes)\n",
              setup_ms, source, compile_ms, read_ms, compiled.size());
  std::printf("fdk cuFFT filter, later set-up of another length: fused %.1f ms, separate %.1f ms\n", jit_ms, plain_ms);
}
