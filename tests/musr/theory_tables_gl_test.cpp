// gl-compute and tabulated theory functions (runs here on llvmpipe): until its evaluator binds
// the table buffers (codegen_glsl.hpp, kGlslTableBinding) a fit with statGssKTLF, statExpKTLF,
// dynGssKTLF or dynExpKTLF is refused at upload with one line naming them, never evaluated from
// unbound buffers; skewedGss (Dawson's integral, no table) runs and matches the reference.
#include <gtest/gtest.h>

#include <string>

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "tests/musr/gpu_test_data.hpp"
#include "tests/musr/theory_tables_data.hpp"

namespace tomo::musr::test {
namespace {

TEST(MusrGlComputeTables, TabulatedFunctionsAreRefusedWithOneLine) {
  const FitData data = kt_lf_data(64);
  try {
    (void)make_evaluator("gl-compute", data, true);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("tabulated functions (statGssKTLF, statExpKTLF, dynGssKTLF, dynExpKTLF)"), std::string::npos) << what;
    EXPECT_NE(what.find("--backend cpu or cuda"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos);
  }
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
