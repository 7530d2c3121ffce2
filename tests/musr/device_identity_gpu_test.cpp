// One GPU path (label gpu; skips without a CUDA device): Python's device-array path
// (DeviceBinsEvaluator, bins in caller-owned device memory) and the registry's `cuda` evaluator
// that the CLI runs give bit-identical χ² / −2 ln L and gradients on the same histograms, in
// double and float.
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/musr/device_arrays.hpp"
#include "tests/musr/gpu_test_data.hpp"

namespace tomo::musr::test {
namespace {

template <class Real>
void expect_identical(const FitData& data, const std::vector<double>& p) {
  const bool single = sizeof(Real) == sizeof(float);
  SCOPED_TRACE(single ? "float" : "double");
  const std::vector<Real> y = concatenated<Real>(data);
  cuda::DeviceBuffer<Real> bins{std::span<const Real>(y)};
  DeviceBinsEvaluator dev(data, single, -1);
  auto cli = make_evaluator("cuda", data, single);
  std::vector<double> gd(p.size()), gc(p.size());
  const double vd = dev.evaluate(p, bins.data()), vc = cli->evaluate(p);
  const double wd = dev.evaluate_with_gradient(p, gd, bins.data()), wc = cli->evaluate_with_gradient(p, gc);
  std::printf("musr device arrays vs registry cuda (%s): %.17g %.17g\n", single ? "float" : "double", vd, vc);
  EXPECT_EQ(vd, vc);
  EXPECT_EQ(wd, wc);
  EXPECT_EQ(gd, gc);
  EXPECT_GT(vc, 0.0);
  EXPECT_GT(max_abs(gc), 0.0);
}

TEST(MusrDeviceIdentity, DeviceArraysAndRegistryCudaAreBitIdentical) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  for (const Statistic stat : {Statistic::chi2, Statistic::max_likelihood}) {
    const FitData data = eq5_data(16, 20001, stat);  // runs not a multiple of a Pack of 8 bins
    const std::vector<double> p = perturbed(eq5_truth(16));
    expect_identical<double>(data, p);
    expect_identical<float>(data, p);
  }
}

}  // namespace
}  // namespace tomo::musr::test
