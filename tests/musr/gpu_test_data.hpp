// Test data of the musr GPU backends: Poisson histograms of [Locans2017]'s eq. 5 (16 detectors,
// A_j exp(−½(σt)²) cos(2πνt + φ_j) on N0_j e^(−t/τ) + Bkg_j) drawn from the formula written out
// here (not from the expression programs under test), the matching programs, and a reference
// statistic through the CPU ProgramEvaluator (double).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <random>
#include <span>
#include <vector>

#include "compute/core/registry.hpp"
#include "compute/musr/expression.hpp"
#include "compute/musr/fit_problem.hpp"

namespace tomo::musr::test {

// Parameters: 0 σ (µs⁻¹), 1 ν (MHz), then per detector j: N0_j, Bkg_j, A_j, φ_j (degrees).
inline int eq5_param(int detector, int which) { return 2 + 4 * detector + which; }

inline std::vector<double> eq5_truth(int detectors) {
  std::vector<double> p(2 + 4 * detectors);
  p[0] = 0.35;
  p[1] = 1.3554;  // 100 G
  for (int j = 0; j < detectors; ++j) {
    p[eq5_param(j, 0)] = 900.0 + 20.0 * j;
    p[eq5_param(j, 1)] = 8.0 + 0.5 * j;
    p[eq5_param(j, 2)] = 0.22 + 0.002 * j;
    p[eq5_param(j, 3)] = 22.5 * j;
  }
  return p;
}

// The model of detector j as an expression program (what the msr THEORY `a sg tf` builds).
inline Program eq5_program(int detectors, int j) {
  ProgramBuilder b(2 + 4 * detectors);
  const auto t = b.time();
  const std::int32_t sg_args[] = {b.param(0)};
  const std::int32_t tf_args[] = {b.param(eq5_param(j, 3)), b.param(1)};
  const auto sg = build_theory_function(b, TheoryFn::simple_gss, sg_args, t);
  const auto tf = build_theory_function(b, TheoryFn::tfield_cos, tf_args, t);
  const auto asym = b.mul(b.param(eq5_param(j, 2)), b.mul(sg, tf));
  const auto decay = b.unary(OpCode::exp, b.mul(t, b.constant(-1.0 / kMuonLifetime)));
  const auto counts = b.mul(b.param(eq5_param(j, 0)), b.mul(decay, b.add(b.constant(1.0), asym)));
  return b.finish(b.add(counts, b.param(eq5_param(j, 1))));
}

// Poisson counts of eq. 5 at t_k = t0 + k·dt, σ = √d (1 for empty bins).
inline FitData eq5_data(int detectors, int bins, Statistic statistic = Statistic::chi2, double dt = 0.01,
                        unsigned seed = 17) {
  const auto p = eq5_truth(detectors);
  std::mt19937_64 rng(seed);
  FitData data;
  data.statistic = statistic;
  data.num_params = static_cast<int>(p.size());
  const double pi = 3.14159265358979323846;
  for (int j = 0; j < detectors; ++j) {
    RunBins run;
    run.model = eq5_program(detectors, j);
    for (int k = 0; k < bins; ++k) {
      const double t = 0.05 + k * dt;
      const double a = p[eq5_param(j, 2)] * std::exp(-0.5 * p[0] * p[0] * t * t) *
                       std::cos(2 * pi * p[1] * t + p[eq5_param(j, 3)] * pi / 180.0);
      const double mean = p[eq5_param(j, 0)] * std::exp(-t / 2.1969811) * (1.0 + a) + p[eq5_param(j, 1)];
      const double d = static_cast<double>(std::poisson_distribution<long>(mean)(rng));
      run.t.push_back(t);
      run.y.push_back(d);
      run.sigma.push_back(d > 0 ? std::sqrt(d) : 1.0);
    }
    data.runs.push_back(std::move(run));
  }
  return data;
}

// The statistic of fit_problem.hpp and its gradient, bin by bin in double (reference).
inline double reference_statistic(const FitData& data, std::span<const double> params, std::vector<double>* grad = nullptr) {
  double sum = 0.0;
  if (grad) grad->assign(static_cast<std::size_t>(data.num_params), 0.0);
  for (const RunBins& run : data.runs) {
    ProgramEvaluator ev(run.model);
    ev.prepare(params, grad != nullptr);
    std::vector<double> dth(ev.used().size());
    for (std::size_t k = 0; k < run.t.size(); ++k) {
      const double th = grad ? ev.value_and_gradient(run.t[k], dth) : ev.value(run.t[k]);
      double c = 0.0;
      if (data.statistic == Statistic::chi2) {
        const double w = 1.0 / (run.sigma[k] * run.sigma[k]), r = run.y[k] - th;
        sum += w * r * r;
        c = -2.0 * w * r;
      } else {
        const double yc = run.scale * run.y[k], thc = run.scale * th;
        if (!(thc > 0.0)) continue;
        sum += 2.0 * ((thc - yc) + (yc > 1e-9 ? yc * std::log(yc / thc) : 0.0));
        c = 2.0 * run.scale * (1.0 - yc / thc);
      }
      if (grad)
        for (std::size_t s = 0; s < dth.size(); ++s) (*grad)[ev.used()[s]] += c * dth[s];
    }
  }
  return sum;
}

// One small program per op of OpCode (domains kept valid for t in [0, 2) and the parameters of
// every_op_params()), named, for the code generators' per-op checks: 5 + op(...)/3.
struct OpCase {
  const char* name;
  Program program;
};
inline std::vector<OpCase> every_op_programs() {
  std::vector<OpCase> out;
  auto add = [&](const char* name, auto&& body) {
    ProgramBuilder b(3);
    const auto t = b.time();
    const auto x = body(b, t, b.param(0), b.param(1), b.param(2));
    out.push_back({name, b.finish(b.add(b.mul(b.constant(1.0 / 3.0), x), b.constant(5.0)))});
  };
  using B = ProgramBuilder;
  using I = std::int32_t;
  add("sin+cos", [](B& b, I t, I p0, I, I) { return b.add(b.unary(OpCode::sin, t), b.unary(OpCode::cos, b.mul(p0, t))); });
  add("tan", [](B& b, I t, I p0, I, I) { return b.unary(OpCode::tan, b.mul(b.mul(b.constant(0.5), p0), t)); });
  add("cosh", [](B& b, I t, I, I p1, I) { return b.unary(OpCode::cosh, b.mul(p1, t)); });
  add("sinh", [](B& b, I t, I, I p1, I) { return b.unary(OpCode::sinh, b.mul(p1, t)); });
  add("tanh", [](B& b, I t, I p0, I, I) { return b.unary(OpCode::tanh, b.sub(t, p0)); });
  add("acos", [](B& b, I t, I p0, I, I) { return b.unary(OpCode::acos, b.mul(b.constant(0.4), b.unary(OpCode::sin, b.mul(p0, t)))); });
  add("asin", [](B& b, I t, I p0, I, I) { return b.unary(OpCode::asin, b.mul(b.constant(0.4), b.unary(OpCode::cos, b.mul(p0, t)))); });
  add("atan", [](B& b, I t, I, I, I p2) { return b.unary(OpCode::atan, b.mul(p2, t)); });
  add("acosh", [](B& b, I t, I p0, I, I) { return b.unary(OpCode::acosh, b.add(b.constant(1.5), b.mul(p0, b.mul(t, t)))); });
  add("asinh", [](B& b, I t, I, I, I p2) { return b.unary(OpCode::asinh, b.mul(p2, t)); });
  add("atanh", [](B& b, I t, I p0, I, I) { return b.unary(OpCode::atanh, b.mul(b.constant(0.45), b.unary(OpCode::sin, b.mul(p0, t)))); });
  add("exp+neg", [](B& b, I t, I, I p1, I) { return b.unary(OpCode::exp, b.mul(b.unary(OpCode::neg, p1), t)); });
  add("log10_abs", [](B& b, I t, I, I, I p2) { return b.unary(OpCode::log10_abs, b.sub(b.add(t, b.constant(0.1)), p2)); });
  add("ln_abs", [](B& b, I t, I p0, I, I) { return b.unary(OpCode::ln_abs, b.add(b.constant(0.5), b.mul(p0, t))); });
  add("sqrt_abs", [](B& b, I t, I, I p1, I) { return b.unary(OpCode::sqrt_abs, b.sub(t, p1)); });
  add("bessel_j0", [](B& b, I t, I p0, I, I) { return b.unary(OpCode::bessel_j0, b.mul(b.constant(4.0), b.mul(p0, t))); });
  add("bessel_j1", [](B& b, I t, I, I, I p2) { return b.unary(OpCode::bessel_j1, b.mul(b.constant(3.0), b.mul(p2, t))); });
  add("pow", [](B& b, I t, I, I, I p2) { return b.binary(OpCode::pow, b.add(t, b.constant(0.5)), p2); });
  add("pow_negative_base", [](B& b, I t, I p0, I, I) { return b.binary(OpCode::pow, b.sub(b.mul(p0, t), b.constant(1.0)), b.constant(3.0)); });
  add("div", [](B& b, I t, I, I p1, I) { return b.binary(OpCode::div, p1, b.add(b.constant(1.0), b.mul(t, t))); });
  add("sub", [](B& b, I t, I p0, I p1, I) { return b.sub(b.mul(p0, t), b.mul(p1, b.mul(t, t))); });
  add("select", [](B& b, I t, I p0, I p1, I p2) { return b.select(b.sub(t, p0), b.mul(p1, t), b.mul(p2, b.mul(t, t))); });
  add("dawson", [](B& b, I t, I p0, I, I) { return b.unary(OpCode::dawson, b.sub(b.mul(b.constant(3.0), b.mul(p0, t)), b.constant(0.5))); });
  return out;
}
inline std::vector<double> every_op_params() { return {0.7, 0.45, 1.2}; }

// One run of `bins` bins over t ∈ [0, 2) with data y = model + a deterministic wiggle, σ = 0.1.
inline FitData op_data(const Program& model, int bins) {
  FitData data;
  data.num_params = 3;
  RunBins run;
  run.model = model;
  const auto p = every_op_params();
  for (int k = 0; k < bins; ++k) {
    const double t = 2.0 * k / bins;
    run.t.push_back(t);
    run.y.push_back(evaluate(run.model, p, t) + 0.3 * std::sin(7.0 * t));
    run.sigma.push_back(0.1);
  }
  data.runs.push_back(std::move(run));
  return data;
}

// Every op's program as one run each, in one fit.
inline FitData every_op_data(int bins) {
  FitData data;
  data.num_params = 3;
  for (auto& c : every_op_programs()) data.runs.push_back(op_data(c.program, bins).runs.front());
  return data;
}

// Every run's y one after the other, as `Real`: the bins a caller hands over in one device array.
template <class Real>
std::vector<Real> concatenated(const FitData& data) {
  std::vector<Real> y;
  for (const RunBins& r : data.runs)
    for (double v : r.y) y.push_back(static_cast<Real>(v));
  return y;
}

// A backend configured for `single` precision with `data` uploaded.
inline std::unique_ptr<Chi2Evaluator> make_evaluator(const std::string& backend, const FitData& data, bool single) {
  auto ev = BackendRegistry<Chi2Evaluator>::instance().create(backend);
  EvaluatorOptions o;
  o.single_precision = single;
  ev->configure(o);
  ev->upload(data);
  return ev;
}

inline double max_abs(const std::vector<double>& v) {
  double m = 0.0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

// Perturbed parameters: every gradient entry clearly non-zero.
inline std::vector<double> perturbed(std::vector<double> p) {
  for (std::size_t i = 0; i < p.size(); ++i) p[i] *= 1.0 + 0.03 * std::sin(1.0 + static_cast<double>(i));
  return p;
}

// Value (with and without gradient) within value_tol relative, gradient within grad_tol of its
// largest entry, against reference_statistic().
inline void expect_matches_reference(Chi2Evaluator& ev, const FitData& data, const std::vector<double>& p,
                                     double value_tol, double grad_tol) {
  std::vector<double> gref;
  const double ref = reference_statistic(data, p, &gref);
  EXPECT_NEAR(ev.evaluate(p), ref, value_tol * std::fabs(ref)) << "value";
  std::vector<double> g(p.size());
  EXPECT_NEAR(ev.evaluate_with_gradient(p, g), ref, value_tol * std::fabs(ref)) << "value of the gradient pass";
  const double scale = max_abs(gref);
  for (std::size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], gref[i], grad_tol * scale) << "d/dp" << i;
}

}  // namespace tomo::musr::test
