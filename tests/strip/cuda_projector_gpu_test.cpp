// The cuda backend (thread and warp granularity) equals the cpu reference after one and after
// three ML-EM iterations within 1e-4 relative L2. Runs on the GPU machine (ctest -L gpu).
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include "cuda/core/device.hpp"
#include "compute/core/registry.hpp"
#include "compute/strip/mlem.hpp"
#include "compute/strip/phantom.hpp"
#include "compute/strip/simulator.hpp"

namespace tomo::strip {
namespace {

constexpr double kTolerance = 1e-4;

std::vector<double> iterate_n(const std::string& backend, const std::string& granularity, const StripGeometry& g,
                              const std::vector<Event>& events, int n) {
  auto op = BackendRegistry<ListModeProjector>::instance().create(backend);
  ProjectorOptions o;
  o.granularity = granularity == "thread" ? Granularity::thread : Granularity::warp;
  if (granularity == "warp-box") o.warp_layout = WarpLayout::box;  // the seed's lane layout
  op->configure(g, {10.0, 40.0}, o);
  op->set_events(events);
  op->set_image(std::vector<double>(g.pixel_count(), 1.0));
  for (int i = 0; i < n; ++i) op->iterate();
  return op->image();
}

class StripCudaVsCpu : public ::testing::TestWithParam<std::string> {};

TEST_P(StripCudaVsCpu, DefaultGridOneAndThreeIterations) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const StripGeometry g = StripGeometry::covering(130.0, 300.0, 4.0);  // 65 × 75, ρ_new fits in shared memory
  const auto events = simulate_phantom(g, {10.0, 40.0}, StripPhantom::appendix_a(), 100000, 17);
  for (int n : {1, 3}) {
    const auto ref = iterate_n("cpu", "thread", g, events, n);
    const auto gpu = iterate_n("cuda", GetParam(), g, events, n);
    const double err = relative_l2(gpu, ref);
    std::printf("cuda %s, %d iteration(s): relative L2 vs cpu %.3g\n", GetParam().c_str(), n, err);
    EXPECT_LT(err, kTolerance);
  }
}

TEST_P(StripCudaVsCpu, LargeGridUsesGlobalAtomicsAndBigBoxes) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  // 0.5 mm pixels: 520 × 600 pixels (1.2 MB, too big for shared memory) and bounding boxes of
  // thousands of pixels, beyond the warp's register cache.
  const StripGeometry g = StripGeometry::covering(130.0, 300.0, 0.5);
  const auto events = simulate_phantom(g, {10.0, 40.0}, StripPhantom::appendix_a(), 1500, 18);
  const auto ref = iterate_n("cpu", "thread", g, events, 1);
  const auto gpu = iterate_n("cuda", GetParam(), g, events, 1);
  const double err = relative_l2(gpu, ref);
  std::printf("cuda %s, 0.5 mm grid: relative L2 vs cpu %.3g\n", GetParam().c_str(), err);
  EXPECT_LT(err, kTolerance);
}

INSTANTIATE_TEST_SUITE_P(Granularity, StripCudaVsCpu, ::testing::Values("thread", "warp", "warp-box"));

TEST(StripCuda, ReportsAvailabilityConsistently) {
  const auto a = BackendRegistry<ListModeProjector>::instance().available("cuda");
  EXPECT_EQ(a.ok, tomo::cuda::have_device()) << a.why;
}

}  // namespace
}  // namespace tomo::strip
