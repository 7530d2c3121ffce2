// fittype 8 (non-μSR x-y data) on the GPU backends (label gpu; skips without a CUDA device):
// simulated x-y points (tests/musr/xy_test_data.hpp) through the generated CUDA kernel and the
// GLSL shader, against cpu: double within 1e-9, float within 1e-5 (value) and 1e-3 of the
// largest gradient entry; and a full fit on cuda lands on the cpu's minimum.
#include <gtest/gtest.h>

#include <cmath>

#include "compute/core/registry.hpp"
#include "compute/musr/fit_setup.hpp"
#include "compute/musr/minimizer.hpp"
#include "cuda/core/device.hpp"
#include "tests/musr/gpu_test_data.hpp"
#include "tests/musr/xy_test_data.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::musr::test {
namespace {

class MusrXyFitGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_F(MusrXyFitGpu, CudaAndGlComputeEqualCpu) {
  tomo::test::TempDir tmp("musr-xy-gpu");
  const MsrFile msr = write_xy_case(tmp.dir, 9);
  const FitSetup s = prepare_fit(msr, [&](const MsrRun& r) { return load_run_data(msr, r); });
  const std::vector<double> p = {4.6, 0.64, 1.15};
  auto cpu = make_evaluator("cpu", s.data, false);
  std::vector<double> gc(3);
  const double want = cpu->evaluate_with_gradient(p, gc);
  std::vector<std::string> backends = {"cuda"};
  if (BackendRegistry<Chi2Evaluator>::instance().available("gl-compute").ok) backends.push_back("gl-compute");
  for (const auto& backend : backends)
    for (bool single : {false, true}) {
      auto ev = make_evaluator(backend, s.data, single);
      const double vt = single ? 1e-5 : 1e-9, gt = single ? 1e-3 : 1e-8;
      EXPECT_NEAR(ev->evaluate(p), want, vt * want) << backend << (single ? " float" : " double");
      std::vector<double> g(3);
      EXPECT_NEAR(ev->evaluate_with_gradient(p, g), want, vt * want) << backend;
      for (int i = 0; i < 3; ++i) EXPECT_NEAR(g[i], gc[i], gt * max_abs(gc)) << backend << " d/dp" << i;
    }
  auto cuda = make_evaluator("cuda", s.data, false);
  const FitResult rc = run_fit(*cpu, msr, s.used, s.data.statistic);
  const FitResult rg = run_fit(*cuda, msr, s.used, s.data.statistic);
  ASSERT_TRUE(rc.converged && rg.converged);
  EXPECT_NEAR(rg.fmin, rc.fmin, 1e-9 * rc.fmin);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(rg.params[i].value, rc.params[i].value, 1e-3 * rc.params[i].error);
}

}  // namespace
}  // namespace tomo::musr::test
