// Test data of libGapIntegrals' shaped gaps (compute/musr/bmw/gap_shapes.hpp): the program of
// `λ⁻²(0) · userFcn libGapIntegrals <name> Tc Δ0 a [c0 aG]` and a temperature scan drawn from
// TGapNonMonDWave1, for the backend comparisons.
#pragma once
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "compute/musr/fit_problem.hpp"
#include "compute/musr/user_fcn.hpp"

namespace tomo::musr::test {

// params: λ⁻²(0), then the function's arguments.
inline Program shape_program(const std::string& name, int args) {
  auto f = resolve_user_function("libGapIntegrals", name, std::filesystem::path(TOMO_SOURCE_DIR));
  ProgramBuilder b(1 + args);
  std::vector<std::int32_t> a;
  for (int i = 0; i < args; ++i) a.push_back(b.param(1 + i));
  return b.finish(b.mul(b.param(0), build_user_function(b, *f, a, b.time())));
}

// λ⁻²(0) (µm⁻²), Tc (K), Δ0 (meV), a, c0, aG.
inline std::vector<double> shape_params() { return {7.983, 4.47, 1.547, 0.3, 1.468, 1.33333}; }

// 24 temperatures from 0.05 K to 4.65 K (the last ones above Tc), σ = 0.1.
inline FitData shape_data() {
  FitData data;
  data.num_params = 6;
  RunBins run;
  run.model = shape_program("TGapNonMonDWave1", 5);
  for (int k = 0; k < 24; ++k) {
    const double t = 0.05 + 0.2 * k;
    run.t.push_back(t), run.y.push_back(evaluate(run.model, shape_params(), t) + 0.1 * std::sin(3.0 * k)), run.sigma.push_back(0.1);
  }
  data.runs.push_back(run);
  return data;
}

}  // namespace tomo::musr::test
