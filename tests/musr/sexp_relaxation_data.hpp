// Test data of SExpRlx (compute/musr/bmw/sexp_relaxation.hpp): the program of
// `asymmetry 1 · userFcn libBNMR SExpRlx 2 3 4` and a β-NMR decay drawn from it, for the backend
// comparisons.
#pragma once
#include <cmath>
#include <filesystem>
#include <vector>

#include "compute/musr/fit_problem.hpp"
#include "compute/musr/user_fcn.hpp"

namespace tomo::musr::test {

inline Program sexp_program() {
  auto f = resolve_user_function("libBNMR", "SExpRlx", std::filesystem::path(TOMO_SOURCE_DIR));
  ProgramBuilder b(4);
  const std::vector<std::int32_t> args = {b.param(1), b.param(2), b.param(3)};
  return b.finish(b.mul(b.param(0), build_user_function(b, *f, args, b.time())));
}

// Asymmetry, pulse (s), λ (1/s), β: the library example's fitted values.
inline std::vector<double> sexp_params() { return {0.115, 1.0, 4.16, 0.433}; }

// 90 bins of 0.1 s from 0.05 s, through the pulse's end, the function plus a fixed ripple, σ = 0.004.
inline FitData sexp_data() {
  FitData data;
  data.num_params = 4;
  RunBins run;
  run.model = sexp_program();
  for (int k = 0; k < 90; ++k) {
    const double t = 0.05 + 0.1 * k;
    run.t.push_back(t), run.y.push_back(evaluate(run.model, sexp_params(), t) + 0.004 * std::sin(3.0 * k)),
        run.sigma.push_back(0.004);
  }
  data.runs.push_back(run);
  return data;
}

}  // namespace tomo::musr::test
