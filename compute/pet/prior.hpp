// The relative difference prior of [Nuyts2002] as an operator with one implementation per
// backend (cpu double reference, gl-compute, cuda), chosen by name through
// tomo::BackendRegistry<pet::PriorOperator>: its value, gradient and Hessian diagonal are
// each one 3×3×3 stencil pass over the image (compute/pet/rdp_math.hpp has the terms), and
// gradient and Hessian diagonal together one more (BSREM's step needs both at the same x).
#pragma once
#include <array>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace tomo::pet {

// The prior's parameters (scene keys <problem>.prior.*, docs/pet.md).
struct RdpParams {
  double beta = 0.0;     // strength β of the prior in the objective L(x) − β R(x)
  double gamma = 2.0;    // edge preservation γ: larger γ penalises large differences less
  double epsilon = 1e-9; // ε > 0 keeps the terms finite where neighbours are both 0
};

// The image grid the prior runs over: dims (x fastest) and voxel sides (neighbour distances).
// The gradient and the Hessian diagonal at one image, from one pass.
struct PriorDerivatives {
  std::vector<double> gradient, hessian_diagonal;
};

struct PriorGrid {
  std::array<int, 3> dims{1, 1, 1};
  std::array<double, 3> voxel_mm{1, 1, 1};
  std::size_t count() const { return std::size_t(dims[0]) * dims[1] * dims[2]; }
};

class PriorOperator {
 public:
  virtual ~PriorOperator() = default;
  virtual std::string describe() const = 0;
  virtual void synchronize() = 0;

  // Grid, γ and ε, and the spatial weights κ (one per voxel, ≥ 0; empty = 1 everywhere). A
  // voxel with κ = 0 takes no part (the field of view's mask); κ_j κ_k weighs the pair j, k.
  virtual void configure(const PriorGrid& grid, const RdpParams& params, std::span<const double> kappa) = 0;
  // R(x) = ½ Σ_j Σ_{k∈N(j)} w_jk κ_j κ_k f(x_j, x_k), β not included.
  virtual double value(std::span<const double> x) = 0;
  // ∂R/∂x_j = Σ_k w_jk κ_j κ_k ∂f/∂a(x_j, x_k).
  virtual std::vector<double> gradient(std::span<const double> x) = 0;
  // ∂²R/∂x_j² = Σ_k w_jk κ_j κ_k ∂²f/∂a²(x_j, x_k).
  virtual std::vector<double> hessian_diagonal(std::span<const double> x) = 0;
  // Both of the above from one pass: x (and κ) read once, each pair's denominator shared. The
  // numbers are those of the two separate calls (the same terms in the same order).
  virtual PriorDerivatives gradient_and_hessian(std::span<const double> x) = 0;
};

// The prior backend that goes with a problem's backend: cpu for cpu, gl-compute for the GL
// backends (gl, gl-compute), cuda for cuda.
std::string prior_backend_for(const std::string& problem_backend);

// The prior of a reconstruction on `grid`, on the backend that goes with `problem_backend`,
// with κ = 1 where the sensitivity is > 0 and 0 outside the field of view (s = 0), so that
// voxels held at 0 do not pull their neighbours down.
std::unique_ptr<PriorOperator> make_prior(const std::string& problem_backend, const PriorGrid& grid,
                                          const RdpParams& params, std::span<const double> sensitivity);

}  // namespace tomo::pet
