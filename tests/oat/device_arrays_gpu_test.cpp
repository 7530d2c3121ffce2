// oat's H_int on caller-owned device memory (cuda/oat/device_arrays.hpp, the Python module's path
// for CuPy/PyTorch arrays; label gpu): forward and transpose equal to the cpu reference within
// gpu_checks.hpp's tolerances (the same kernels as the cuda backend), with and without an EIR, the
// transpose overwrites its output, and the results are written into the caller's memory.
#include <gtest/gtest.h>

#include <cstdio>

#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/oat/device_arrays.hpp"
#include "tests/oat/gpu_checks.hpp"

namespace tomo::oat::test {
namespace {

void check_device_arrays(Interpolation interp, EirKind eir) {
  const OatGeometry g = small_geometry(12, 1.0, 4, 8, 20.0, 5.0, eir);
  ModelOptions o;
  o.interpolation = interp;
  const auto x = random_positive(g.grid.count(), 3), y = random_positive(g.data_size(), 4);
  const ModelRun ref = run_model("cpu", g, o, x, y);
  const std::vector<float> xf(x.begin(), x.end()), yf(y.begin(), y.end());
  cuda::DeviceBuffer<float> alpha{std::span<const float>(xf)}, data{std::span<const float>(yf)};
  cuda::DeviceBuffer<float> u(g.data_size()), back(g.grid.count());
  back.upload(std::vector<float>(g.grid.count(), 7.0f));  // the transpose must overwrite, not add
  DeviceArrayModel m(g, o, -1);
  ASSERT_EQ(m.voxels(), g.grid.count());
  ASSERT_EQ(m.data_samples(), g.data_size());
  m.forward(alpha.data(), u.data());
  m.adjoint(data.data(), back.data());
  const std::vector<float> got_u = u.to_host(), got_a = back.to_host();
  const double e_fwd = relative_l2(std::vector<double>(got_u.begin(), got_u.end()), ref.u);
  const double e_adj = relative_l2(std::vector<double>(got_a.begin(), got_a.end()), ref.alpha);
  std::printf("oat device arrays %s, eir %s: forward rel. L2 vs cpu %.3g, transpose %.3g (%s)\n",
              to_string(interp).c_str(), std::string(enum_name(kEirKindNames, eir)).c_str(), e_fwd, e_adj,
              m.describe().c_str());
  EXPECT_LT(e_fwd, interp == Interpolation::exact ? kExactTolerance : kHardwareTolerance);
  EXPECT_LT(e_adj, kExactTolerance);
}

TEST(OatDeviceArrays, ExactEqualsCpu) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  check_device_arrays(Interpolation::exact, EirKind::none);
}

TEST(OatDeviceArrays, ExactWithEirEqualsCpu) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  check_device_arrays(Interpolation::exact, EirKind::gaussian);
}

TEST(OatDeviceArrays, HardwareWithinItsTolerance) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  check_device_arrays(Interpolation::hardware, EirKind::none);
}

TEST(OatDeviceArrays, NullPointersAreAnError) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  DeviceArrayModel m(small_geometry(), {}, -1);
  cuda::DeviceBuffer<float> u(m.data_samples());
  EXPECT_THROW(m.forward(nullptr, u.data()), Error);
}

}  // namespace
}  // namespace tomo::oat::test
