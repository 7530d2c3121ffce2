// List-mode ML-EM of seed 000 in the ρ' = sρ form (eqs. 5–6), written once against
// ListModeProjector, plus the image metrics used by the runner and the tests.
#pragma once
#include <functional>
#include <span>
#include <vector>

#include "compute/strip/projector.hpp"

namespace tomo::strip {

// Runs `iterations` steps of eq. (5) from ρ' = 1 everywhere (events must already be set).
// `after_iteration(t, ρ'_t)` is called after each iteration t = 1..iterations.
std::vector<double> run_mlem(ListModeProjector& op, std::size_t pixels, int iterations,
                             const std::function<void(int, const std::vector<double>&)>& after_iteration = {});

// ρ = ρ'/s (eq. 6), 0 where s = 0.
std::vector<double> rho_from_rho_prime(std::span<const double> rho_prime, std::span<const double> s);

// Pearson correlation of two images (0 when either is constant).
double correlation(std::span<const double> a, std::span<const double> b);
// ‖k·a − ref‖ / ‖ref‖ with the least-squares scale k = ⟨a,ref⟩/⟨a,a⟩ (ML-EM images carry counts,
// the phantom relative density).
double nrmse_scaled(std::span<const double> a, std::span<const double> ref);
// ‖a − b‖ / ‖b‖: the backend cross-check measure.
double relative_l2(std::span<const double> a, std::span<const double> b);

}  // namespace tomo::strip
