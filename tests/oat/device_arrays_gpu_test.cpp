// oat's H_int on caller-owned device memory (cuda/oat/device_arrays.hpp, the Python module's path
// for CuPy/PyTorch arrays; label gpu): forward and transpose equal to the cpu reference within
// gpu_checks.hpp's tolerances (the same kernels as the cuda backend), with and without an EIR, the
// transpose overwrites its output, and the results are written into the caller's memory. The FBP
// on device pressure (DeviceArrayFbp): within kFbpExactTolerance of the cpu FBP, through the
// backend's default kernel, from device or host pressure (identity with the backend:
// identity_gpu_test.cpp);
// with the EIR deconvolution on the GPU equal to the host deconvolution's (deconvolve_eir, FFTW)
// within 1e-6 relative L2 on the same float data, and to the cpu FBP of it within 1e-4.
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "compute/oat/deconvolution.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/oat/device_arrays.hpp"
#include "tests/oat/fbp_checks.hpp"
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

void check_device_fbp(const FbpCase& c, const char* what) {
  const std::vector<float> pf(c.p.begin(), c.p.end());
  const std::size_t N = c.g.grid.count();
  cuda::DeviceBuffer<float> p{std::span<const float>(pf)}, image(N);
  image.upload(std::vector<float>(N, 7.0f));  // overwritten, not added to
  DeviceArrayFbp fbp(c.g);
  ASSERT_EQ(fbp.voxels(), N);
  ASSERT_EQ(fbp.data_samples(), c.g.data_size());
  fbp.reconstruct(p.data(), image.data());
  const std::vector<float> got = image.to_host();
  const double e = relative_l2(std::vector<double>(got.begin(), got.end()), c.ref);
  std::printf("%s: oat device-array FBP (%s): rel. L2 vs cpu %.3g\n", what, fbp.describe().c_str(), e);
  EXPECT_LT(e, kFbpExactTolerance);
  EXPECT_EQ(fbp.kernel(), "deferred");
  // From host pressure (the EIR deconvolution's output in the Python module): the same image, up to
  // the order of the fix-up pass's float atomics (identity_gpu_test.cpp).
  cuda::DeviceBuffer<float> image2(N);
  fbp.reconstruct(std::span<const double>(c.p), image2.data());
  EXPECT_LE(atomic_order_difference(image2.to_host(), got), kAtomicOrderTolerance);
}

TEST(OatDeviceArrays, FbpEqualsCpu) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  check_device_fbp(make_fbp_case(small_geometry(16, 0.75, 8, 16, 30.0, 10.0)), "16^3 x 0.75 mm, 8x16 on 30 mm");
  check_device_fbp(make_fbp_case(close_geometry(7, 13)), "13x11x19 x 0.5 mm, 7x13 on 9.13 mm");
}

TEST(OatDeviceArrays, FbpDeconvolvesOnTheDevice) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const FbpCase c = make_fbp_case(small_geometry(16, 0.75, 8, 16, 30.0, 10.0, EirKind::gaussian));
  ASSERT_TRUE(c.g.eir.active());
  const std::vector<float> uf(c.p.begin(), c.p.end());
  const std::vector<double> ud(uf.begin(), uf.end());
  const std::size_t N = c.g.grid.count();
  auto cpu = BackendRegistry<Fbp>::instance().create("cpu");
  cpu->configure(c.g, FbpOptions{});
  DeviceArrayFbp fbp(c.g);
  cuda::DeviceBuffer<float> u{std::span<const float>(uf)}, image(N), host_path(N);
  for (double cutoff : {0.0, 3.0}) {  // the default cutoff (EIR at 1 %), an explicit Hann window
    fbp.reconstruct_deconvolved(u.data(), cutoff, image.data());
    const std::vector<double> p = deconvolve_eir(c.g, ud, cutoff);
    fbp.reconstruct(p, host_path.data());
    std::vector<double> ref(N);
    cpu->reconstruct(deconvolve_eir(c.g, c.p, cutoff), ref);
    const std::vector<float> got = image.to_host(), host = host_path.to_host();
    const std::vector<double> g(got.begin(), got.end());
    const double e_host = relative_l2(g, std::vector<double>(host.begin(), host.end())), e_cpu = relative_l2(g, ref);
    std::printf("oat device-array FBP, EIR deconvolved on the GPU (cutoff %g MHz): rel. L2 vs the host "
                "deconvolution %.3g, vs cpu %.3g\n", cutoff, e_host, e_cpu);
    EXPECT_LT(e_host, 1e-6) << cutoff;
    EXPECT_LT(e_cpu, 1e-4) << cutoff;
  }
}

TEST(OatDeviceArrays, FbpBadCallsAreErrors) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  DeviceArrayFbp fbp(small_geometry());
  cuda::DeviceBuffer<float> image(fbp.voxels());
  EXPECT_THROW(fbp.reconstruct(static_cast<const float*>(nullptr), image.data()), Error);
  const std::vector<double> short_p(fbp.data_samples() - 1, 0.0);
  EXPECT_THROW(fbp.reconstruct(std::span<const double>(short_p), image.data()), InputError);
}

}  // namespace
}  // namespace tomo::oat::test
