// What report.json records of a PLS run (CLI, both models): each iteration, and the settings
// with the scales μ was measured against.
#pragma once
#include <nlohmann/json.hpp>

#include "compute/oat/pls.hpp"

namespace tomo::oat {

inline nlohmann::json pls_iteration_json(const PlsIteration& s) {
  return {{"iteration", s.iteration}, {"objective", s.objective}, {"data_term", s.data_term}, {"residual", s.residual}};
}

// report.json "pls": regulariser, bound, μ and the scales of PlsScale (λ = 0: not estimated).
inline nlohmann::json pls_settings_json(const PlsOptions& o, const PlsScale& s) {
  return {{"regulariser", to_string(o.regulariser)}, {"nonnegative", o.nonnegative}, {"mu", o.mu},
          {"iterations", o.iterations}, {"lambda", s.lambda}, {"alpha_scale", s.alpha},
          {"solver", (o.regulariser == Regulariser::tv || o.nonnegative) ? "fista" : "cg"}};
}

}  // namespace tomo::oat
