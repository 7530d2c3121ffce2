// FDK's cuFFT pre-processing on caller-owned device memory (cuda/fdk/device_arrays.hpp DeviceFilter,
// the Python module's path for fdk.fdk on CuPy/PyTorch stacks; label gpu): bit for bit the
// registered cuda ProjectionFilter on host memory with the same chunks, equal to the CPU FdkFilter
// (FFTW, double) within 1e-5 relative L2 as CufftFilter is, to CufftFilter's host path within 1e-7,
// chunks with an offset n0 and in place, and one error per bad call (wrong image size, range
// outside the orbit).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/fdk/filter.hpp"
#include "compute/fdk/projection_filter.hpp"
#include "compute/fdk/simulate.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/fdk/cufft_filter.hpp"
#include "cuda/fdk/device_arrays.hpp"

namespace tomo::fdk {
namespace {

CArmGeometry small_orbit() {
  CArmGeometry g;  // RabbitCT distances and 200° arc, 18 views of 40×32 at 7.2 mm
  g.projections = 18;
  g.sx = 40;
  g.sy = 32;
  g.pixel_mm = 7.2;
  return g;
}

TEST(FdkDeviceFilter, EqualsTheCpuFilterAndCufftFilterInChunks) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const CArmGeometry g = small_orbit();
  const std::vector<float> raw = simulate_projections(shepp_logan_3d(), g);  // independent line integrals
  const std::size_t image = std::size_t(g.sx) * g.sy;
  FilterOptions o;
  o.window = RampWindow::SheppLogan;
  const FdkFilter cpu(g, o);
  std::vector<float> ref(raw.size()), host(raw.size());
  for (int n = 0; n < g.projections; ++n) cpu.apply(n, raw.data() + n * image, ref.data() + n * image);
  CufftFilter(g, o).apply_host(0, g.projections, raw.data(), host.data());

  cuda::DeviceBuffer<float> in{std::span<const float>(raw)}, out(raw.size());
  out.upload(std::vector<float>(raw.size(), 7.0f));  // overwritten, not added to
  DeviceFilter f(g, o, -1);
  for (int n0 = 0; n0 < g.projections; n0 += 5) {  // chunks of 5, 5, 5, 3: Parker weights follow n0
    const int cnt = std::min(5, g.projections - n0);
    f.apply(n0, {in.data() + n0 * image, g.sx, g.sy, cnt}, out.data() + n0 * image);
  }
  const std::vector<float> got = out.to_host();
  const double e_cpu = relative_l2(got, ref), e_host = relative_l2(got, host);
  std::printf("fdk device filter (%s): rel. L2 vs cpu FdkFilter %.3g, vs CufftFilter host path %.3g\n",
              f.describe().c_str(), e_cpu, e_host);
  EXPECT_LT(e_cpu, 1e-5);
  EXPECT_LT(e_host, 1e-7) << "the same kernels; only the batch grouping differs";

  f.apply(0, {in.data(), g.sx, g.sy, g.projections}, in.data());  // in place
  EXPECT_LT(relative_l2(in.to_host(), host), 1e-7);
}

TEST(FdkDeviceFilter, BitIdenticalToTheRegisteredCudaFilter) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const CArmGeometry g = small_orbit();
  const std::vector<float> raw = simulate_projections(shepp_logan_3d(), g);
  const std::size_t image = std::size_t(g.sx) * g.sy;
  auto op = BackendRegistry<ProjectionFilter>::instance().create("cuda");
  op->setup(g, {});
  std::vector<float> host(raw.size());
  DeviceFilter f(g, {}, -1);
  cuda::DeviceBuffer<float> in{std::span<const float>(raw)}, out(raw.size());
  for (int n0 = 0; n0 < g.projections; n0 += 7) {  // chunks of 7, 7, 4 on both paths
    const int cnt = std::min(7, g.projections - n0);
    op->apply(n0, cnt, raw.data() + n0 * image, host.data() + n0 * image);
    f.apply(n0, {in.data() + n0 * image, g.sx, g.sy, cnt}, out.data() + n0 * image);
  }
  const std::vector<float> got = out.to_host();
  ASSERT_EQ(got.size(), host.size());
  EXPECT_EQ(std::memcmp(got.data(), host.data(), got.size() * sizeof(float)), 0);
  double mass = 0;
  for (float v : got) mass += std::abs(v);
  EXPECT_GT(mass, 1e-3) << "not trivially zero";
}

TEST(FdkDeviceFilter, BadCallsAreErrors) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const CArmGeometry g = small_orbit();
  cuda::DeviceBuffer<float> buf(std::size_t(g.sx) * g.sy * 2);
  DeviceFilter f(g, {}, -1);
  EXPECT_THROW(f.apply(0, {buf.data(), g.sx - 1, g.sy, 1}, buf.data()), Error);       // wrong image size
  EXPECT_THROW(f.apply(g.projections - 1, {buf.data(), g.sx, g.sy, 2}, buf.data()), Error);  // past the orbit
  EXPECT_THROW(f.apply(0, {nullptr, g.sx, g.sy, 1}, buf.data()), Error);
}

}  // namespace
}  // namespace tomo::fdk
