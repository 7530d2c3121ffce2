// fdk's back-projection on caller-owned device memory (cuda/fdk/device_arrays.hpp, the Python
// module's path for CuPy/PyTorch arrays; label gpu): bit for bit the registered cuda backend on
// the same stack in one call (what Python's backend="cuda" on NumPy runs), within 1e-6 of the CLI's
// batches of 16 (other launch grouping), within 1e-5 of the cpu reference (exact), accumulate adds,
// and the volume is the caller's memory.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>

#include "compute/core/metrics.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/fdk/device_arrays.hpp"
#include "tests/fdk/small_stack.hpp"

namespace tomo::fdk {
namespace {

std::unique_ptr<ConeBeamBackprojector> cuda_backend(Interpolation interp) {
  auto op = BackendRegistry<ConeBeamBackprojector>::instance().create("cuda");
  BackprojectorOptions o;
  o.interpolation = interp;
  op->configure(o);
  return op;
}

std::vector<float> run_device(const Grid3& grid, Interpolation interp, int repeats) {
  const ProjectionStack& p = test::small_stack();
  cuda::DeviceBuffer<float> pixels{std::span<const float>(p.pixels)};
  cuda::DeviceBuffer<float> volume(grid.count());
  auto op = cuda_backend(interp);
  DeviceBackprojector bp(*op, tomo::cuda::current_device());
  for (int r = 0; r < repeats; ++r)
    bp.backproject(grid, {pixels.data(), p.sx, p.sy, p.count()}, p.matrices, volume.data(), r > 0);
  return volume.to_host();
}

// The registry's cuda backend on host memory, all projections in one backproject() call.
std::vector<float> run_host_one_call(const Grid3& grid, Interpolation interp) {
  const ProjectionStack& p = test::small_stack();
  auto op = cuda_backend(interp);
  const ProjectionView all{p.sx, p.sy, p.count(), p.matrices.data(), p.pixels.data()};
  op->reset(grid);
  op->prepare(all);
  op->backproject(all);
  return op->volume().data;
}

TEST(FdkDeviceArrays, BitIdenticalToTheRegisteredCudaBackend) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const Grid3 grid = rabbit_grid(40);
  for (Interpolation interp : {Interpolation::exact, Interpolation::hardware}) {
    const std::vector<float> dev = run_device(grid, interp, 1), host = run_host_one_call(grid, interp);
    ASSERT_EQ(dev.size(), host.size());
    EXPECT_EQ(std::memcmp(dev.data(), host.data(), dev.size() * sizeof(float)), 0) << to_string(interp);
    double mass = 0;
    for (float v : dev) mass += std::abs(v);
    EXPECT_GT(mass, 1.0) << "not trivially zero";
  }
}

TEST(FdkDeviceArrays, EqualsTheCliBatchesAndTheCpuReference) {
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

TEST(FdkDeviceArrays, BadCallsAreErrors) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const ProjectionStack& p = test::small_stack();
  cuda::DeviceBuffer<float> volume(8 * 8 * 8);
  auto op = cuda_backend(Interpolation::hardware);
  DeviceBackprojector bp(*op, tomo::cuda::current_device());
  EXPECT_THROW(bp.backproject(rabbit_grid(8), {nullptr, p.sx, p.sy, 3}, p.matrices, volume.data(), false), Error);
  auto cpu = BackendRegistry<ConeBeamBackprojector>::instance().create("cpu");
  EXPECT_THROW(DeviceBackprojector(*cpu, 0), Error);  // only the cuda backend
}

}  // namespace
}  // namespace tomo::fdk
