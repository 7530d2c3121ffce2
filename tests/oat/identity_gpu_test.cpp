// One GPU path (label gpu; skip without a device): the device-array classes the Python module runs
// on CuPy/PyTorch arrays (DeviceArrayModel, DeviceArrayFbp) and the registry's `cuda` backends
// give the same results on the same float input: H_int bit for bit; H_intᵀ bit for bit where it is
// the general gather (fixed-point sums, exact in any order) and up to the order of its float4
// atomics where the array has the quarter-turn symmetry; the FBP (whose fix-up pass adds by float
// atomics in an order that varies from run to run) bit for bit up to that order, and through the
// same kernel (the backend's describe() and the device array's kernel()).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "compute/core/registry.hpp"
#include "compute/oat/model.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/oat/device_arrays.hpp"
#include "tests/oat/fbp_checks.hpp"
#include "tests/oat/gpu_checks.hpp"
#include "tests/oat/small_geometry.hpp"

namespace tomo::oat::test {
namespace {

std::vector<float> to_float(const std::vector<double>& v) { return {v.begin(), v.end()}; }
std::vector<double> to_double(const std::vector<float>& v) { return {v.begin(), v.end()}; }
// The backend's result comes back in double; it computed in float, so rounding to float is exact.
std::vector<float> backend_floats(const std::vector<double>& v) { return to_float(v); }

std::size_t differing(const std::vector<float>& a, const std::vector<float>& b) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) n += a[i] != b[i];
  return n;
}

TEST(OatGpuIdentity, ModelDeviceArraysEqualTheCudaBackend) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  for (const auto& [views, eir] : {std::pair{8, EirKind::none}, std::pair{8, EirKind::gaussian},
                                    std::pair{6, EirKind::none}, std::pair{6, EirKind::gaussian}}) {
    const OatGeometry g = small_geometry(12, 1.0, 4, views, 20.0, 5.0, eir);
    const bool symmetric = views % 4 == 0;  // cuda_model_gpu_test SymmetryCheckPicksTheKernels
    const ModelOptions o;
    const std::vector<float> xf = to_float(random_positive(g.grid.count(), 3));
    const std::vector<float> yf = to_float(random_positive(g.data_size(), 4));
    auto op = BackendRegistry<Model>::instance().create("cuda");
    op->configure(g, o);
    std::vector<double> u(g.data_size()), alpha(g.grid.count());
    op->forward(to_double(xf), u);
    op->adjoint(to_double(yf), alpha);
    DeviceArrayModel m(g, o, -1);
    cuda::DeviceBuffer<float> x{std::span<const float>(xf)}, y{std::span<const float>(yf)};
    cuda::DeviceBuffer<float> du(g.data_size()), da(g.grid.count());
    m.forward(x.data(), du.data());
    m.adjoint(y.data(), da.data());
    const std::vector<float> fu = du.to_host(), fa = da.to_host();
    const std::vector<float> bu = backend_floats(u), ba = backend_floats(alpha);
    std::printf("4x%d views, eir %d: H_int %zu of %zu values differ; H_intT %zu of %zu differ, max %.3g of the "
                "largest\n",
                views, static_cast<int>(eir), differing(fu, bu), fu.size(), differing(fa, ba), fa.size(),
                atomic_order_difference(fa, ba));
    EXPECT_EQ(fu, bu) << "H_int: the device arrays and the cuda backend ran different arithmetic";
    if (symmetric) {
      EXPECT_LE(atomic_order_difference(fa, ba), kAtomicOrderTolerance);
    } else {
      // The gather's fixed-point sums are exact whatever the order of its adds: the same bits.
      EXPECT_EQ(fa, ba) << "H_intT: the device arrays and the cuda backend differ";
    }
  }
}

void check_fbp_identity(const FbpCase& c, const char* what) {
  const std::vector<float> pf = to_float(c.p);
  auto op = BackendRegistry<Fbp>::instance().create("cuda");
  op->configure(c.g, FbpOptions{});
  std::vector<double> img(c.g.grid.count());
  op->reconstruct(to_double(pf), img);
  DeviceArrayFbp fbp(c.g);
  cuda::DeviceBuffer<float> p{std::span<const float>(pf)}, image(c.g.grid.count());
  fbp.reconstruct(p.data(), image.data());
  const std::vector<float> got = image.to_host(), want = backend_floats(img);
  std::printf("%s: FBP %s (%s) vs %s: %zu of %zu voxels differ, max %.3g of the largest\n", what,
              std::string(fbp.kernel()).c_str(), fbp.describe().c_str(), op->describe().c_str(), differing(got, want),
              got.size(), atomic_order_difference(got, want));
  EXPECT_EQ(fbp.kernel(), "deferred");
  EXPECT_NE(op->describe().find("deferred to an exact fix-up pass"), std::string::npos) << op->describe();
  EXPECT_LE(atomic_order_difference(got, want), kAtomicOrderTolerance);
}

TEST(OatGpuIdentity, FbpDeviceArraysEqualTheCudaBackend) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  check_fbp_identity(make_fbp_case(small_geometry(16, 0.75, 8, 16, 30.0, 10.0)), "16^3 x 0.75 mm, 8x16 on 30 mm");
  check_fbp_identity(make_fbp_case(close_geometry(7, 13)), "13x11x19 x 0.5 mm, 7x13 on 9.13 mm");
}

}  // namespace
}  // namespace tomo::oat::test
