// Penalised least squares for the oat model ([Wang2013] "PLS"): α̂ = argmin ‖u − Hα‖² + μ·λ·P(α),
// with P the quadratic first-difference penalty R or ᾱ·TV, λ the data term's curvature and ᾱ
// the image's level (PlsScale: they make μ dimensionless), optionally over α ≥ 0. Quadratic without the bound:
// linear conjugate gradients from zero on (HᵀH + μλLᵀL)α = Hᵀu; TV or the bound: the monotone
// FISTA of [Beck2009] with the TV proximal operator of compute/core/tv_prox.hpp. Written once
// against oat::Model (H_int or H_sph through SphAsModel), every backend; the prox runs on the host.
#pragma once
#include <array>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "compute/core/enum_name.hpp"
#include "compute/core/volume.hpp"
#include "compute/oat/model.hpp"

namespace tomo::oat {

// oat.pls.regulariser
enum class Regulariser { quadratic, tv };
inline constexpr std::array<EnumName<Regulariser>, 2> kRegulariserNames{
    {{"quadratic", Regulariser::quadratic}, {"tv", Regulariser::tv}}};
inline std::string to_string(Regulariser r) { return std::string(enum_name(kRegulariserNames, r)); }

struct PlsOptions {
  int iterations = 20;
  // Penalty weight, dimensionless: relative to the data term's curvature λ (and the image level
  // ᾱ for TV), see PlsScale and
  // docs/oat.md "PLS". 0: no penalty ([Wang2013]: 0 for simulations).
  double mu = 0.0;
  Regulariser regulariser = Regulariser::quadratic;
  bool nonnegative = false;  // α ≥ 0 (projected, by FISTA)
  int tv_iterations = 20;    // dual iterations of the TV prox per PLS iteration (warm-started)
};

// The scales μ is measured against, from the data before the first iteration (one H).
struct PlsScale {
  // λ = ‖H b‖² / ‖b‖², b = Hᵀu: the curvature of the data term ‖u − Hα‖²/2 along the data's own
  // back-projection (HᵀH's eigenvalues averaged with the weights of b's energy in them; below
  // ‖H‖²). It makes μ dimensionless: the penalty is μλ·R, so μ = 0.01 weighs a roughness the
  // way 1 % of the data's curvature does, whatever the units and sizes of u and α.
  double lambda = 0;
  // ᾱ = ‖u‖² / (√N·‖Hᵀu‖): the RMS voxel value of an image whose data are u (exact when u lies
  // in one eigenspace of HHᵀ). TV's weight carries it (μλᾱ·TV), so a step of height ᾱ between
  // neighbours costs the same under both penalties and one μ means about the same for both.
  double alpha = 0;
};

struct PlsIteration {
  int iteration = 0;       // 0: the start (α = 0)
  double objective = 0;    // ‖u − Hα‖² + μλP(α)
  double data_term = 0;    // ‖u − Hα‖²
  // CG: ‖(HᵀH + μλLᵀL)α − Hᵀu‖ / ‖Hᵀu‖ (the normal equations' residual); FISTA: the gradient
  // mapping 2λ‖α − y‖ / (2‖Hᵀu‖), which is that residual where no bound or TV acts.
  double residual = 0;
  PlsScale scale;          // λ and ᾱ
};

// R(α) = Σ over neighbouring voxel pairs along x, y, z of (α_n − α_m)².
double first_difference_penalty(const Grid3& grid, std::span<const double> alpha);
// out += μ·LᵀLα (half the gradient of μR).
void add_penalty_normal(const Grid3& grid, double mu, std::span<const double> alpha, std::span<double> out);


// Hᵀu and H·Hᵀu first, then one Hᵀ and one H per iteration after the first (pls_applications
// of pls_progress.hpp; a FISTA step retried with a longer step bound adds an H); `on_iteration` sees iteration 0 and every one after (it may
// throw to interrupt). CG stops early when the residual reaches 0 (exact solution).
std::vector<double> run_pls(Model& model, const Grid3& grid, std::span<const double> data, const PlsOptions& options,
                            const std::function<void(const PlsIteration&)>& on_iteration = {});

// The pieces (pls_scale.cpp, pls_fista.cpp), given Hᵀu; pls_scale also returns H·Hᵀu (CG's
// first forward, so CG spends nothing on λ).
PlsScale pls_scale(Model& model, std::span<const double> data, std::span<const double> htu, std::vector<double>& h_htu);
std::vector<double> run_pls_fista(Model& model, const Grid3& grid, std::span<const double> data,
                                  std::span<const double> htu, const PlsOptions& options, const PlsScale& scale,
                                  const std::function<void(const PlsIteration&)>& on_iteration);

}  // namespace tomo::oat
