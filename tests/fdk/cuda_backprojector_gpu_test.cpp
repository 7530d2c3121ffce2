// cuda back-projection vs the cpu reference (label gpu): exact interpolation within 1e-4 relative
// L2, texture-unit interpolation within 5e-3 and ≥ 60 dB PSNR (RabbitCT HU), slab mode and
// launch size do not change the result, odd grid sizes are handled.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include "cuda/core/device.hpp"
#include "compute/core/registry.hpp"
#include "compute/fdk/backprojector.hpp"
#include "compute/fdk/metrics.hpp"
#include "compute/fdk/pipeline.hpp"
#include "compute/fdk/simulate.hpp"
#include "tests/fdk/small_stack.hpp"

using namespace tomo;
using namespace tomo::fdk;

namespace {

const ProjectionStack& data() { return test::small_stack(); }

VolumeF run(const std::string& backend, const Grid3& grid, BackprojectorOptions o = {}, int batch = 16) {
  auto op = BackendRegistry<ConeBeamBackprojector>::instance().create(backend);
  op->configure(o);
  return reconstruct(*op, grid, data(), batch);
}

BackprojectorOptions exact() {
  BackprojectorOptions o;
  o.interpolation = Interpolation::exact;
  return o;
}

}  // namespace

TEST(FdkCuda, ExactInterpolationMatchesCpu) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const Grid3 grid = rabbit_grid(64);
  const VolumeF ref = run("cpu", grid);
  const VolumeF v = run("cuda", grid, exact());
  const double err = relative_l2(v.data, ref.data);
  std::printf("cuda exact vs cpu: relative L2 %.3e\n", err);
  EXPECT_LE(err, 1e-4);
}

TEST(FdkCuda, HardwareInterpolationIsCloseToCpu) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const Grid3 grid = rabbit_grid(64);
  const VolumeF ref = run("cpu", grid);
  const VolumeF v = run("cuda", grid);  // default: hardware bilinear
  const double err = relative_l2(v.data, ref.data);
  const std::array<float, 2> hu{50000.0f, 0.0f};
  const RabbitMetric m = rabbit_metric(to_hu(v, hu), to_hu(ref, hu));
  std::printf("cuda hardware vs cpu: relative L2 %.3e, PSNR %.1f dB, max %g HU\n", err, m.psnr_db, m.max_abs);
  EXPECT_LE(err, 5e-3);  // CPU emulation of 8-bit weights: 1.6e-3
  EXPECT_GE(m.psnr_db, 60.0);
}

TEST(FdkCuda, SlabsAndLaunchSizesDoNotChangeTheResult) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const Grid3 grid = rabbit_grid(64);
  const VolumeF resident = run("cuda", grid, exact());
  BackprojectorOptions slabs = exact();
  slabs.device_memory_mb = 0.25;  // 64·64·4 B per slice → 16-slice slabs
  EXPECT_LE(relative_l2(run("cuda", grid, slabs).data, resident.data), 1e-7);
  BackprojectorOptions small = exact();
  small.projections_per_launch = 7;
  EXPECT_LE(relative_l2(run("cuda", grid, small, 5).data, resident.data), 1e-5);
}

TEST(FdkCuda, OddGridSizesMatchCpu) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  Grid3 grid = Grid3::centred({37, 29, 19}, {5.0, 6.0, 7.0});
  const VolumeF ref = run("cpu", grid);
  const VolumeF v = run("cuda", grid, exact());
  EXPECT_LE(relative_l2(v.data, ref.data), 1e-4);
}
