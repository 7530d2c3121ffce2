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
  // The static run's two functions apart (diagnostic, printed): 0.6 statGssKTLF (tshift) and
  // 0.4 statExpKTLF against the same data.
  for (const char* fn : {"statGssKTLF", "statExpKTLF"}) {
    FitData one = data;
    one.runs = {data.runs[2]};
    ProgramBuilder b(10);
    std::vector<std::int32_t> args = {b.param(0), b.param(fn[4] == 'G' ? 5 : 3)};
    if (fn[4] == 'G') args.push_back(b.param(9));
    const auto f = build_theory_function(b, find_theory_function(fn)->fn, args, b.time());
    one.runs[0].model = b.finish(b.mul(b.param(4), b.mul(b.constant(fn[4] == 'G' ? 0.6 : 0.4), f)));
    for (std::size_t k = 0; k < one.runs[0].t.size(); ++k) {
      const double t = one.runs[0].t[k];
      one.runs[0].y[k] = evaluate(one.runs[0].model, kt_lf_params(), t) + 0.005 * std::sin(3.0 * t + 2.0);
    }
    const double ref = reference_statistic(one, p), got = make_evaluator("gl-compute", one, true)->evaluate(p);
    std::printf("%s alone: float chi2 %.9g, reference %.9g, relative %.3g\n", fn, got, ref, (got - ref) / ref);
  }
  expect_matches_reference(*make_evaluator("gl-compute", data, false), data, p, 1e-9, 1e-8);
  expect_matches_reference(*make_evaluator("gl-compute", data, true), data, p, 1e-5, 5e-4);
}

// statExpKTLF where ω₀t runs from 0.001 (below: musrfit's j0 = 1, j1 = 0) to 4: its spherical
// Bessel functions j0 = sin x/x and j1 = (sin x − x cos x)/x² cancel near 0, where float loses
// 3e-7/x² of j1 relatively even with correctly rounded sin and cos, and a driver whose sin and
// cos have absolute errors (GLSL allows 2^-11) loses far more; the model must not.
TEST(MusrGlComputeTables, StaticLorentzianNearTimeZeroInFloat) {
  FitData data;
  data.num_params = 3;
  ProgramBuilder b(3);
  const std::int32_t args[] = {b.param(0), b.param(1)};
  const Program model = b.finish(b.mul(b.param(2), build_theory_function(b, TheoryFn::stat_exp_kt_lf, args, b.time())));
  const std::vector<double> p = {2.0, 1.5, 1.0};  // ν₀ (MHz), a, amplitude
  const double w0 = 2.0 * kPi * p[0];
  RunBins run;
  run.model = model;
  for (int k = 0; k < 2000; ++k) {
    const double t = 0.001 * std::pow(4000.0, k / 1999.0) / w0;  // ω₀t log-spaced over 0.001..4
    run.t.push_back(t), run.y.push_back(evaluate(model, p, t) + 0.002 * std::sin(7.0 * k)), run.sigma.push_back(0.002);
  }
  data.runs.push_back(run);
  const auto q = perturbed(p);
  const double ref = reference_statistic(data, q), got = make_evaluator("gl-compute", data, true)->evaluate(q);
  std::printf("statExpKTLF: float chi2 %.9g, reference %.9g, relative %.3g\n", got, ref, (got - ref) / ref);
  {
    // The quotients written out (diagnostic, printed): A·j1 as (sin x − x cos x)/x², x = ω₀t.
    FitData naive = data;
    ProgramBuilder n(3);
    const auto x = n.mul(n.mul(n.constant(2.0 * kPi), n.param(0)), n.time());
    const auto j1 = n.div(n.sub(n.unary(OpCode::sin, x), n.mul(x, n.unary(OpCode::cos, x))), n.mul(x, x));
    naive.runs[0].model = n.finish(n.mul(n.param(2), j1));
    for (std::size_t k = 0; k < naive.runs[0].t.size(); ++k) naive.runs[0].y[k] = evaluate(naive.runs[0].model, p, naive.runs[0].t[k]) + 0.002 * std::cos(static_cast<double>(k) / 300.0);
    const double r = reference_statistic(naive, q), g = make_evaluator("gl-compute", naive, true)->evaluate(q);
    std::printf("j1 as (sin x - x cos x)/x^2: float chi2 %.9g, reference %.9g, relative %.3g\n", g, r, (g - r) / r);
  }
  expect_matches_reference(*make_evaluator("gl-compute", data, false), data, q, 1e-9, 1e-8);
  expect_matches_reference(*make_evaluator("gl-compute", data, true), data, q, 1e-5, 5e-4);
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
