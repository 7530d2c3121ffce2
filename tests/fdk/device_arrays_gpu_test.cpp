// fdk's back-projection on caller-owned device memory (cuda/fdk/device_arrays.hpp, the Python
// module's path for CuPy/PyTorch arrays; label gpu): equal to the cuda backend on the same stack
// (same kernel, other launch grouping: ≤ 1e-6 relative L2), to the cpu reference (exact: ≤ 1e-5),
// accumulate adds, and the volume is the caller's memory.
#include <gtest/gtest.h>

#include "compute/core/metrics.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/fdk/device_arrays.hpp"
#include "tests/fdk/small_stack.hpp"

namespace tomo::fdk {
namespace {

std::vector<float> run_device(const Grid3& grid, Interpolation interp, int repeats) {
  const ProjectionStack& p = test::small_stack();
  cuda::DeviceBuffer<float> pixels{std::span<const float>(p.pixels)};
  cuda::DeviceBuffer<float> volume(grid.count());
  BackprojectorOptions o;
  o.interpolation = interp;
  DeviceBackprojector bp(o, -1);
  for (int r = 0; r < repeats; ++r)
    bp.backproject(grid, {pixels.data(), p.sx, p.sy, p.count()}, p.matrices, volume.data(), r > 0);
  return volume.to_host();
}

TEST(FdkDeviceArrays, EqualsTheCudaBackendAndTheCpuReference) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const Grid3 grid = rabbit_grid(40);
  for (Interpolation interp : {Interpolation::exact, Interpolation::hardware}) {
    const std::vector<float> dev = run_device(grid, interp, 1);
    const VolumeF cuda = test::backproject_small_stack("cuda", grid, interp);
    EXPECT_LE(relative_l2(dev, cuda.data), 1e-6) << to_string(interp);
  }
  const VolumeF cpu = test::backproject_small_stack("cpu", grid, Interpolation::exact);
  EXPECT_LE(relative_l2(run_device(grid, Interpolation::exact, 1), cpu.data), 1e-5);
}

TEST(FdkDeviceArrays, AccumulateAddsIntoTheVolume) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const Grid3 grid = rabbit_grid(24);
  std::vector<float> once = run_device(grid, Interpolation::exact, 1);
  for (float& v : once) v *= 3.0f;
  EXPECT_LE(relative_l2(run_device(grid, Interpolation::exact, 3), once), 1e-6);
}

TEST(FdkDeviceArrays, MismatchedMatricesAreAnError) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const ProjectionStack& p = test::small_stack();
  cuda::DeviceBuffer<float> volume(8 * 8 * 8);
  DeviceBackprojector bp({}, -1);
  EXPECT_THROW(bp.backproject(rabbit_grid(8), {nullptr, p.sx, p.sy, 3}, p.matrices, volume.data(), false), Error);
}

}  // namespace
}  // namespace tomo::fdk
