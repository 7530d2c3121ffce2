// User functions on the GPU backends (label gpu; skips without a CUDA device): musrfit's
// UserFcnWithGlobal example (single histograms, PDummyUserFcn) and libZFRelaxation's example
// (asymmetry, ZFMagExp) as the generated CUDA kernel and GLSL shader evaluate them, against cpu:
// double within 1e-9, float within 1e-5 (value) and 1e-3 of the largest gradient entry.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compute/core/registry.hpp"
#include "compute/musr/fit_setup.hpp"
#include "compute/musr/msr.hpp"
#include "cuda/core/device.hpp"
#include "tests/musr/gpu_test_data.hpp"

namespace tomo::musr::test {
namespace {

// The repository (the msr files and their data); TOMO_SOURCE_DIR in the environment overrides
// the configured path where the tests run from a copied build folder.
std::filesystem::path source_dir() {
  const char* e = std::getenv("TOMO_SOURCE_DIR");
  return e && *e ? std::filesystem::path(e) : std::filesystem::path(TOMO_SOURCE_DIR);
}

struct Case {
  FitData data;
  std::vector<double> params;
};

Case load(const std::string& rel) {
  const MsrFile msr = read_msr(source_dir() / "tests/musr/musrfit" / rel);
  Case c{prepare_fit(msr, [&](const MsrRun& r) { return load_run_data(msr, r); }).data, {}};
  for (const auto& p : msr.params) c.params.push_back(p.value);
  c.params = perturbed(c.params);
  return c;
}

void expect_backend_matches_cpu(const std::string& backend, const Case& c) {
  auto cpu = make_evaluator("cpu", c.data, false);
  std::vector<double> gc(c.params.size());
  const double want = cpu->evaluate_with_gradient(c.params, gc);
  const double scale = max_abs(gc);
  for (bool single : {false, true}) {
    auto ev = make_evaluator(backend, c.data, single);
    const double vt = single ? 1e-5 : 1e-9, gt = single ? 1e-3 : 1e-8;
    EXPECT_NEAR(ev->evaluate(c.params), want, vt * want) << backend << (single ? " float" : " double");
    std::vector<double> g(c.params.size());
    EXPECT_NEAR(ev->evaluate_with_gradient(c.params, g), want, vt * want) << backend;
    for (std::size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], gc[i], gt * scale) << backend << " d/dp" << i;
  }
}

class MusrUserFcnGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_F(MusrUserFcnGpu, UserFcnWithGlobalOnCudaAndGlComputeMatchesCpu) {
  const Case c = load("UserFcnWithGlobal/test-histo-PSI-BIN-UserFcn.msr");
  expect_backend_matches_cpu("cuda", c);
  if (BackendRegistry<Chi2Evaluator>::instance().available("gl-compute").ok) expect_backend_matches_cpu("gl-compute", c);
}

TEST_F(MusrUserFcnGpu, ZFMagExpOnCudaAndGlComputeMatchesCpu) {
  const Case c = load("BMWlibs/test-libZFRelaxation-PSI-BIN.msr");
  expect_backend_matches_cpu("cuda", c);
  if (BackendRegistry<Chi2Evaluator>::instance().available("gl-compute").ok) expect_backend_matches_cpu("gl-compute", c);
}

}  // namespace
}  // namespace tomo::musr::test
