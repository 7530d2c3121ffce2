// libBNMR's SExpRlx as a native built-in: values against an independent quadrature
// (tests/musr/reference/sexp_relaxation_reference.py), the limits β = 1 (ExpRlx) and λ = 0, the
// table's interpolation and gradient, and gl-compute against cpu.
#include <gtest/gtest.h>

#include <cmath>

#include "compute/musr/bmw/sexp_relaxation.hpp"
#include "compute/musr/user_fcn.hpp"
#include "tests/musr/gpu_test_data.hpp"
#include "tests/musr/sexp_relaxation_data.hpp"

namespace tomo::musr::test {
namespace {

struct Reference {
  double t, pulse, lambda, beta, want;
};

// mpmath tanh-sinh quadrature at 30 digits of the library's integrals (the script's output).
constexpr Reference kReference[] = {
    {0.225, 1, 4.16, 0.433, 0.52608185769112027}, {0.5, 1, 4.16, 0.433, 0.41800703546255933},
    {1, 1, 4.16, 0.433, 0.33171328081497569},     {1.3, 1, 4.16, 0.433, 0.21213031971072287},
    {4.025, 1, 4.16, 0.433, 0.042296446823418451}, {8.975, 1, 4.16, 0.433, 0.0094894031356259275},
    {0.7, 2, 0.8, 1.7, 0.89178768072513038},      {3.3, 2, 0.8, 1.7, 0.14092051044517034},
    {0.003, 0.01, 30, 0.5, 0.82084814061328634},  {0.4, 0.01, 30, 0.5, 0.031992595720396764},
};

// libBNMR's ExpRlx, the closed form of β = 1, written out here.
double exp_rlx(double t, double pulse, double lambda) {
  const double tau = 1.210, taup = tau / (1 + lambda * tau);
  if (t < 0) return 0;
  if (t <= pulse) return taup / tau * (1 - std::exp(-t / taup)) / (1 - std::exp(-t / tau));
  return taup / tau * (1 - std::exp(-pulse / taup)) / (1 - std::exp(-pulse / tau)) * std::exp(-lambda * (t - pulse));
}

double table_at(double t, double pulse, double lambda, double beta) {
  return kt_lookup(sexp_relaxation_table(pulse, lambda, beta, 0).v, sexp_relaxation_table(pulse, lambda, beta, 0).dt, t);
}

TEST(MusrSExpRlx, DirectQuadratureMatchesTheReference) {
  for (const auto& r : kReference)
    EXPECT_NEAR(sexp_relaxation(r.t, r.pulse, r.lambda, r.beta), r.want, 1e-10 * r.want) << "t = " << r.t << ", Δ = " << r.pulse;
}

TEST(MusrSExpRlx, TableMatchesTheReferenceBetweenItsNodes) {
  // Linear interpolation on steps of at most 1 ms and 0.005/λ: within 1e-6 of the value
  // (relative), 1e-4 where λt < 0.5 (the stretched exponential's cusp at t = 0).
  for (const auto& r : kReference)
    EXPECT_NEAR(table_at(r.t, r.pulse, r.lambda, r.beta), r.want, (r.lambda * r.t < 0.5 ? 1e-4 : 1e-6) * r.want)
        << "t = " << r.t << ", Δ = " << r.pulse;
  const KtTable t = sexp_relaxation_table(1.0, 4.16, 0.433, 0);
  EXPECT_DOUBLE_EQ(t.dt, 1e-3);   // 1 ms < 0.005/λ, Δ on node 1000
  EXPECT_EQ(t.v.size(), 21002u);  // 21 s (e^(−(λt)^β) reaches e^(−28) only after 20 s)
  const KtTable fast = sexp_relaxation_table(1.0, 500.0, 0.7, 0);
  EXPECT_DOUBLE_EQ(fast.dt, 1e-5);  // 0.005/λ
  EXPECT_EQ(fast.v.size(), static_cast<std::size_t>(std::floor((1.0 + std::pow(28.0, 1 / 0.7) / 500.0) / 1e-5)) + 2);
  for (double x : {0.0012, 0.5, 1.0003, 1.02})
    EXPECT_NEAR(kt_lookup(fast.v, fast.dt, x), sexp_relaxation(x, 1.0, 500.0, 0.7), 1e-6 * sexp_relaxation(x, 1.0, 500.0, 0.7)) << x;
  EXPECT_EQ(t.v[0], 1.0);
  EXPECT_EQ(kt_lookup(t.v, t.dt, -0.1), 0.0);
}

TEST(MusrSExpRlx, BetaOneIsExpRlxAndLambdaZeroIsOne) {
  for (double t : {0.01, 0.3, 1.0, 1.5, 6.0}) {
    EXPECT_NEAR(sexp_relaxation(t, 1.0, 4.16, 1.0), exp_rlx(t, 1.0, 4.16), 1e-12) << t;
    EXPECT_NEAR(sexp_relaxation(t, 0.4, 0.7, 1.0), exp_rlx(t, 0.4, 0.7), 1e-12) << t;
    EXPECT_NEAR(table_at(t, 1.0, 4.16, 1.0), exp_rlx(t, 1.0, 4.16), 2e-6 * exp_rlx(t, 1.0, 4.16)) << t;
    EXPECT_NEAR(sexp_relaxation(t, 1.0, 0.0, 0.433), 1.0, 1e-12) << t;
    EXPECT_NEAR(table_at(t, 1.0, 0.0, 0.433), 1.0, 1e-12) << t;
  }
  EXPECT_EQ(sexp_relaxation(-0.5, 1.0, 4.16, 0.433), 0.0);
}

TEST(MusrSExpRlx, ShortPulsesLeaveTheGridsCap) {
  // A 0.1 ms pulse would need 2·10⁵ nodes: the values are then computed one by one on a capped grid.
  const KtTable t = sexp_relaxation_table(1e-4, 2.0, 0.6, 0);
  EXPECT_EQ(t.v.size(), kSexpMaxPoints);
  for (double x : {0.05, 0.5, 3.0})
    EXPECT_NEAR(kt_lookup(t.v, t.dt, x), sexp_relaxation(x, 1e-4, 2.0, 0.6), 1e-6) << x;
}

TEST(MusrSExpRlx, GradientMatchesDifferencesOfTheValue) {
  const Program p = sexp_program();
  const std::vector<double> par = sexp_params();
  ProgramEvaluator ev(p);
  ev.prepare(par, true);
  std::vector<double> g(ev.used().size());
  for (double t : {0.45, 2.35, 6.05}) {
    (void)ev.value_and_gradient(t, g);
    for (std::size_t k = 0; k < ev.used().size(); ++k) {
      const int i = ev.used()[k];
      const double h = 1e-4 * std::max(0.1, std::fabs(par[i]));
      auto up = par, dn = par;
      up[i] += h, dn[i] -= h;
      // From the direct quadrature: tables with another Δ lie on another grid.
      auto model = [&](const std::vector<double>& q) { return q[0] * sexp_relaxation(t, q[1], q[2], q[3]); };
      const double want = (model(up) - model(dn)) / (2 * h);
      EXPECT_NEAR(g[k], want, 1e-4 * std::max(1e-2, std::fabs(want))) << "parameter " << i + 1 << ", t = " << t;
    }
  }
}

TEST(MusrSExpRlx, GlComputeEqualsCpu) {
  const FitData data = sexp_data();
  expect_matches_reference(*make_evaluator("gl-compute", data, false), data, sexp_params(), 1e-9, 1e-7);
  expect_matches_reference(*make_evaluator("gl-compute", data, false), data, perturbed(sexp_params()), 1e-9, 1e-7);
}

TEST(MusrSExpRlx, TakesThreeArguments) {
  auto f = resolve_user_function("libBNMR", "SExpRlx", std::filesystem::path(TOMO_SOURCE_DIR));
  EXPECT_EQ(f->arity_error(2), "takes 3 arguments, got 2");
  EXPECT_EQ(f->arity_error(3), "");
}

}  // namespace
}  // namespace tomo::musr::test
