// Test data of libCalcMeanFieldsLEM's TMeanFieldsForScSingleLayer (compute/musr/bmw/mean_fields.hpp):
// its program over musrfit's example profiles, the example's fitted point, a point with unequal
// layer weights, and an energy scan drawn from the function, for the backend comparisons.
#pragma once
#include <cmath>
#include <filesystem>
#include <vector>

#include "compute/musr/fit_problem.hpp"
#include "compute/musr/user_fcn.hpp"

namespace tomo::musr::test {

inline const std::filesystem::path kMeanFieldsExample = std::filesystem::path(TOMO_SOURCE_DIR) / "tests/musr/musrfit/BMWlibs";

// params: B0, dead layer, thickness, λ, w1, w2, w3; x is the energy in keV.
inline Program mean_program(const std::filesystem::path& dir) {
  auto f = resolve_user_function("libCalcMeanFieldsLEM", "TMeanFieldsForScSingleLayer", dir);
  ProgramBuilder b(7);
  std::vector<std::int32_t> args;
  for (int i = 0; i < 7; ++i) args.push_back(b.param(i));
  return b.finish(build_user_function(b, *f, args, b.time()));
}

inline std::vector<double> mean_fitted() { return {95.0, 3.71915, 157.461, 305.142, 1.0, 1.0, 1.0}; }
inline std::vector<double> mean_weighted() { return {100.0, 12.0, 80.0, 60.0, 0.3, 0.9, 0.6}; }

// 14 energies from 0.5 to 26.5 keV (below, between and above the profiles), σ = 0.04 G.
inline FitData mean_data() {
  FitData data;
  data.num_params = 7;
  RunBins run;
  run.model = mean_program(kMeanFieldsExample);
  for (int k = 0; k < 14; ++k) {
    const double e = 0.5 + 2.0 * k;
    run.t.push_back(e), run.y.push_back(evaluate(run.model, mean_fitted(), e) + 0.05 * std::sin(3.0 * k)), run.sigma.push_back(0.04);
  }
  data.runs.push_back(run);
  return data;
}

}  // namespace tomo::musr::test
