// musr's statistic on fitted bins in caller-owned device memory (cuda/musr/device_arrays.hpp,
// the Python module's path for CuPy/PyTorch bins; label gpu): the bins passed, not the fit's,
// are read (the test shifts every bin by one count), χ² and max-likelihood with their gradients
// equal the double reference within 1e-9 / 1e-8 (double) and 1e-5 / 2e-4 (float), as the cuda
// evaluator's own tests; a fit whose σ are not the bins' Poisson errors is refused (InputError).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "compute/core/error.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/musr/device_arrays.hpp"
#include "tests/musr/gpu_test_data.hpp"

namespace tomo::musr::test {
namespace {

// `data` with one count more in every bin and the σ that go with it: the caller's own bins.
FitData shifted(FitData data) {
  for (RunBins& r : data.runs)
    for (std::size_t k = 0; k < r.y.size(); ++k) {
      r.y[k] += 1.0;
      r.sigma[k] = std::sqrt(r.y[k]);
    }
  return data;
}

TEST(MusrDeviceBins, StatisticOfTheCallersBinsEqualsTheReference) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  for (const Statistic stat : {Statistic::chi2, Statistic::max_likelihood}) {
    const FitData data = eq5_data(4, 3001, stat);  // 3001: runs not a multiple of a Pack of 8 bins
    const FitData mine = shifted(data);
    const std::vector<double> yd = concatenated<double>(mine);
    const std::vector<float> yf = concatenated<float>(mine);
    cuda::DeviceBuffer<double> bins_d{std::span<const double>(yd)};
    cuda::DeviceBuffer<float> bins_f{std::span<const float>(yf)};
    const std::vector<double> p = perturbed(eq5_truth(4));
    std::vector<double> gref;
    const double ref = reference_statistic(mine, p, &gref);
    DeviceBinsEvaluator d(data, false, -1), f(data, true, -1);
    ASSERT_EQ(d.bins(), yd.size());
    std::vector<double> g(p.size()), gf(p.size());
    const double v = d.evaluate(p, bins_d.data()), vg = d.evaluate_with_gradient(p, g, bins_d.data());
    const double fv = f.evaluate(p, bins_f.data()), fvg = f.evaluate_with_gradient(p, gf, bins_f.data());
    std::printf("musr device bins (%s): double %.12g, float %.9g, reference %.12g\n",
                stat == Statistic::chi2 ? "chi2" : "max likelihood", v, fv, ref);
    EXPECT_NEAR(v, ref, 1e-9 * std::fabs(ref));
    EXPECT_NEAR(vg, ref, 1e-9 * std::fabs(ref));
    EXPECT_NEAR(fv, ref, 1e-5 * std::fabs(ref));
    EXPECT_NEAR(fvg, ref, 1e-5 * std::fabs(ref));
    const double scale = max_abs(gref);
    for (std::size_t i = 0; i < g.size(); ++i) {
      EXPECT_NEAR(g[i], gref[i], 1e-8 * scale) << "d/dp" << i;
      EXPECT_NEAR(gf[i], gref[i], 2e-4 * scale) << "float d/dp" << i;
    }
    EXPECT_GT(std::fabs(v - reference_statistic(data, p)), 1e-6 * std::fabs(ref));  // the shift shows
  }
}

TEST(MusrDeviceBins, RefusesErrorsThatAreNotTheBinsPoissonErrors) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  FitData data = eq5_data(2, 500);
  data.runs[1].sigma[7] *= 2.0;
  EXPECT_THROW(DeviceBinsEvaluator(data, false, -1), InputError);
}

}  // namespace
}  // namespace tomo::musr::test
