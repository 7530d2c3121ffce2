// glpet's cuda projector on caller-owned device vectors (cuda/glpet/device_arrays.hpp, the Python
// module's path for CuPy/PyTorch arrays; label gpu): the back-projection (a gather) bit for bit the
// same projector's host path, the forward projection within 1e-6 relative L2 of it (float atomics
// sum in an order the GPU does not fix), both within 1e-4 of the cpu reference (docs/glpet.md §5).
#include <gtest/gtest.h>

#include <cstring>

#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/glpet/cpu_projector.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/glpet/device_arrays.hpp"
#include "tests/glpet/small_system.hpp"

namespace tomo::glpet {
namespace {

TEST(GlpetDeviceArrays, ForwardAndBackEqualTheHostPaths) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const SystemModel sys = test::small_system(12, 2.5, 2, 16);
  CpuProjector cpu;
  cpu.configure(sys);
  auto cuda = BackendRegistry<Projector>::instance().create("cuda");
  cuda->configure(sys);
  const std::vector<float> x = test::random_vector(sys.voxel_count(), 3), y = test::random_vector(sys.lor_count(), 4);
  cuda::DeviceBuffer<float> xd{std::span<const float>(x)}, yd{std::span<const float>(y)};
  cuda::DeviceBuffer<float> fx(sys.lor_count()), by(sys.voxel_count());
  DeviceProjection dev(*cuda, sys.voxel_count(), sys.lor_count(), 0);
  dev.forward(xd.data(), fx.data());
  dev.back(yd.data(), by.data());
  const std::vector<float> f = fx.to_host(), b = by.to_host();
  EXPECT_LE(relative_l2(f, forward_host(*cuda, x)), 1e-6);
  const std::vector<float> b_host = back_host(*cuda, y);
  ASSERT_EQ(b.size(), b_host.size());
  EXPECT_EQ(std::memcmp(b.data(), b_host.data(), b.size() * sizeof(float)), 0) << "the same gather kernel";
  EXPECT_LE(relative_l2(f, forward_host(cpu, x)), 1e-4);
  EXPECT_LE(relative_l2(b, back_host(cpu, y)), 1e-4);
  // The input is read, not changed; a second call gives the same result.
  dev.forward(xd.data(), fx.data());
  EXPECT_LE(relative_l2(fx.to_host(), f), 1e-6);
  EXPECT_EQ(xd.to_host(), x);
}

TEST(GlpetDeviceArrays, OtherBackendsAreRefused) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const SystemModel sys = test::small_system(8, 2.5, 2, 16);
  CpuProjector cpu;
  cpu.configure(sys);
  EXPECT_THROW(DeviceProjection(cpu, sys.voxel_count(), sys.lor_count(), 0), Error);
}

}  // namespace
}  // namespace tomo::glpet
