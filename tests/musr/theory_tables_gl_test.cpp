// gl-compute and tabulated theory functions (runs here on llvmpipe): statGssKTLF, statExpKTLF,
// dynGssKTLF and dynExpKTLF from the tables the host refills before each dispatch, and skewedGss
// (Dawson's integral, no table), match the reference in double and float.
#include <gtest/gtest.h>

#include <cstdio>

#include <string>

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "tests/musr/gpu_test_data.hpp"
#include "tests/musr/theory_tables_data.hpp"

namespace tomo::musr::test {
namespace {

TEST(MusrGlComputeTables, TabulatedFunctionsMatchTheReferenceInFloatAndDouble) {
  const FitData data = kt_lf_data(2000);
  const auto p = perturbed(kt_lf_params());
  // Each run's float χ² against the double reference (printed: the driver's float functions
  // differ, llvmpipe's from NVIDIA's).
  for (std::size_t r = 0; r < data.runs.size(); ++r) {
    FitData one = data;
    one.runs = {data.runs[r]};
    const double ref = reference_statistic(one, p), got = make_evaluator("gl-compute", one, true)->evaluate(p);
    std::printf("run %zu: float chi2 %.9g, reference %.9g, relative %.3g\n", r, got, ref, (got - ref) / ref);
  }
  expect_matches_reference(*make_evaluator("gl-compute", data, false), data, p, 1e-9, 1e-8);
  expect_matches_reference(*make_evaluator("gl-compute", data, true), data, p, 1e-5, 5e-4);
}

TEST(MusrGlComputeTables, SkewedGaussianRunsInFloatAndDouble) {
  FitData data;
  data.num_params = 10;
  ProgramBuilder b(10);
  std::vector<std::int32_t> args = {b.param(8), b.param(8), b.param(6), b.param(7)};
  const Program model = b.finish(b.mul(b.param(4), build_theory_function(b, TheoryFn::skewed_gss, args, b.time())));
  const auto p = kt_lf_params();
  RunBins run;
  run.model = model;
  for (int k = 0; k < 4000; ++k) {
    const double t = 8.0 * k / 4000;
    run.t.push_back(t), run.y.push_back(evaluate(model, p, t) + 0.01 * std::sin(5.0 * t)), run.sigma.push_back(0.01);
  }
  data.runs.push_back(run);
  expect_matches_reference(*make_evaluator("gl-compute", data, false), data, perturbed(p), 1e-9, 1e-8);
  expect_matches_reference(*make_evaluator("gl-compute", data, true), data, perturbed(p), 1e-5, 5e-4);
}

}  // namespace
}  // namespace tomo::musr::test
