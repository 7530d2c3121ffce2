// The cuda back-projection's own check beyond the backend contract (backprojector_contract.hpp;
// label gpu): slab mode and launch size do not change the result.
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

