// Penalised least squares for the oat model ([Wang2013] "PLS"): α̂ = argmin ‖u − Hα‖² + μR(α),
// R the quadratic first-difference penalty over the three axes, by linear conjugate gradients
// from zero on the normal equations (HᵀH + μLᵀL)α = Hᵀu; written once against oat::Model.
#pragma once
#include <functional>
#include <span>
#include <vector>

#include "compute/core/volume.hpp"
#include "compute/oat/model.hpp"

namespace tomo::oat {

struct PlsOptions {
  int iterations = 20;
  double mu = 0.0;  // penalty weight ([Wang2013]: 0 for simulations)
};

struct PlsIteration {
  int iteration = 0;       // 0: the start (α = 0)
  double objective = 0;    // ‖u − Hα‖² + μR(α)
  double data_term = 0;    // ‖u − Hα‖²
  double residual = 0;     // ‖(HᵀH + μLᵀL)α − Hᵀu‖ / ‖Hᵀu‖ (CG residual of the normal equations)
};

// R(α) = Σ over neighbouring voxel pairs along x, y, z of (α_n − α_m)².
double first_difference_penalty(const Grid3& grid, std::span<const double> alpha);
// out += μ·LᵀLα (half the gradient of μR).
void add_penalty_normal(const Grid3& grid, double mu, std::span<const double> alpha, std::span<double> out);

// One H and one Hᵀ per iteration; `on_iteration` sees iteration 0 and every one after (it may
// throw to interrupt). Stops early when the residual reaches 0 (exact solution).
std::vector<double> run_pls(Model& model, const Grid3& grid, std::span<const double> data, const PlsOptions& options,
                            const std::function<void(const PlsIteration&)>& on_iteration = {});

}  // namespace tomo::oat
