// List-mode ML-EM of [Bialas2015] in the ρ' = sρ form (eqs. 5–6), written once against
// ListModeProjector; the image metrics come from compute/core/metrics.hpp.
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "compute/core/metrics.hpp"
#include "compute/core/sensitivity_mask.hpp"
#include "compute/strip/projector.hpp"

namespace tomo::strip {

// Code that says `using namespace tomo::strip` (benches, tests) finds the shared measures here.
using tomo::correlation;
using tomo::nrmse;
using tomo::relative_l2;

// Runs `iterations` steps of eq. (5) from ρ' = 1 everywhere (events must already be set).
// `after_iteration(t, ρ'_t)` is called after each iteration t = 1..iterations.
std::vector<double> run_mlem(ListModeProjector& op, std::size_t pixels, int iterations,
                             const std::function<void(int, const std::vector<double>&)>& after_iteration = {});

// ρ = ρ'/s (eq. 6), 0 where s is below `threshold` × max s (the field of view,
// compute/core/sensitivity_mask.hpp; scene key strip.sensitivity_threshold) or 0, and 0 where
// `outside` is 1 (outside_field_of_view; scene key strip.fov_mask; empty: nowhere).
std::vector<double> rho_from_rho_prime(std::span<const double> rho_prime, std::span<const double> s,
                                       double threshold = kDefaultSensitivityThreshold,
                                       std::span<const std::uint8_t> outside = {});

}  // namespace tomo::strip
