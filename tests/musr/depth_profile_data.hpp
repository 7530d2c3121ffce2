// Test data of PDepthProfile (compute/musr/bmw/depth_profile.hpp) on the 1300Ar example's TRIM.SP
// profiles: the program of `userFcn libPDepthProfile PDepthProfile 1 2 3 4 5` and an energy scan
// drawn from it, for the backend comparisons.
#pragma once
#include <cmath>
#include <filesystem>
#include <vector>

#include "compute/musr/fit_problem.hpp"
#include "compute/musr/user_fcn.hpp"

namespace tomo::musr::test {

inline const std::filesystem::path kDepthFolder =
    std::filesystem::path(TOMO_SOURCE_DIR) / "tests/musr/musrfit/DepthProfiles/1300Ar";

inline Program depth_program() {
  auto f = resolve_user_function("libPDepthProfile", "PDepthProfile", kDepthFolder);
  ProgramBuilder b(5);
  std::vector<std::int32_t> args;
  for (int i = 0; i < 5; ++i) args.push_back(b.param(i));
  return b.finish(build_user_function(b, *f, args, b.time()));
}

inline std::vector<double> depth_params() { return {0.1531, 0.04051, 0.00447, 39.7, 103.8}; }

// 21 energies from 2 to 22 keV, the function plus a fixed ripple, σ = 0.001.
inline FitData depth_data() {
  FitData data;
  data.num_params = 5;
  RunBins run;
  run.model = depth_program();
  for (int k = 0; k < 21; ++k) {
    const double e = 2.0 + k + 0.003 * k;
    run.t.push_back(e), run.y.push_back(evaluate(run.model, depth_params(), e) + 0.001 * std::sin(3.0 * k)),
        run.sigma.push_back(0.001);
  }
  data.runs.push_back(run);
  return data;
}

}  // namespace tomo::musr::test
