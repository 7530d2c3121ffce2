// A fit whose theories use every tabulated Kubo–Toyabe function and the skewed Gaussian (for the
// GPU backends' table path): three asymmetry-like runs over 0–8 µs, the first two with the same
// parameters (one shared set of tables), data = the model at kt_lf_params() plus a deterministic
// wiggle, σ = 0.01.
#pragma once
#include <cmath>
#include <vector>

#include "compute/musr/expression.hpp"
#include "compute/musr/fit_problem.hpp"

namespace tomo::musr::test {

// 0 ν₀ (MHz), 1 Δ, 2 ν, 3 a, 4 A, 5 Δ of run 3, 6 σ₋, 7 σ₊, 8 ν of skewedGss, 9 tshift of run 3.
// The tshift is no multiple of the bin width: t − tshift then never lands on a point of the
// static integral's 1 ns grid, where the interpolant's slope (∂/∂tshift) jumps and the cpu and a
// kernel, whose times differ in the last bit, could take different sides.
inline std::vector<double> kt_lf_params() { return {0.3, 0.8, 0.4, 0.6, 0.2, 0.5, 0.4, 0.9, 1.2, 0.0517}; }

inline Program kt_lf_program(int run) {
  ProgramBuilder b(10);
  const auto t = b.time();
  auto fn = [&](const char* name, std::vector<int> params) {
    std::vector<std::int32_t> args;
    for (int i : params) args.push_back(i < 0 ? b.constant(10.0) : b.param(i));
    return build_theory_function(b, find_theory_function(name)->fn, args, t);
  };
  auto w = [&](double k, std::int32_t x) { return b.mul(b.constant(k), x); };
  // One statement per function: their tables are numbered in this order.
  std::int32_t sum;
  if (run < 2) {
    const auto gss = w(0.5, fn("dynGssKTLF", {0, 1, 2}));
    const auto lor = w(0.3, fn("dynExpKTLF", {0, 3, 2}));
    const auto skg = w(0.2, fn("skewedGss", {-1, 8, 6, 7}));
    sum = b.add(b.add(gss, lor), skg);
  } else {
    const auto gss = w(0.6, fn("statGssKTLF", {0, 5, 9}));
    const auto lor = w(0.4, fn("statExpKTLF", {0, 3}));
    sum = b.add(gss, lor);
  }
  return b.finish(b.mul(b.param(4), sum));
}

inline FitData kt_lf_data(int bins) {
  FitData data;
  data.num_params = 10;
  const auto p = kt_lf_params();
  for (int r = 0; r < 3; ++r) {
    RunBins run;
    run.model = kt_lf_program(r);
    for (int k = 0; k < bins; ++k) {
      const double t = 8.0 * k / bins;
      run.t.push_back(t);
      run.y.push_back(evaluate(run.model, p, t) + 0.005 * std::sin(3.0 * t + r));
      run.sigma.push_back(0.01);
    }
    data.runs.push_back(std::move(run));
  }
  return data;
}

}  // namespace tomo::musr::test
