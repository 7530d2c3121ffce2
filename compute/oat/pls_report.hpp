// What report.json records of a PLS run (CLI, both models): each iteration, and the settings
// with the scales μ was measured against.
#pragma once
#include <nlohmann/json.hpp>

#include "compute/oat/pls.hpp"
#include "compute/oat/pls_progress.hpp"

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

// report.json "pls_time": H and Hᵀ calls with their seconds (transfers included) and the rest of
// the PLS stage's `total` seconds (the solver's vector work, reports and progress).
inline nlohmann::json pls_time_json(const OperatorTime& forward, const OperatorTime& adjoint, double total) {
  return {{"forward_calls", forward.calls},   {"forward_s", forward.seconds}, {"adjoint_calls", adjoint.calls},
          {"adjoint_s", adjoint.seconds},     {"total_s", total},
          {"other_s", total - forward.seconds - adjoint.seconds}};
}

}  // namespace tomo::oat
