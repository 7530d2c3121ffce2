// The iterative algorithms of the PET reconstruction layer, written once over SubsetPrimitives,
// which glpet, safir and strip implement over their backends: ML-EM, OSEM ([Hudson1994]), MAP
// with the relative difference prior ([Nuyts2002]) by BSREM ([Ahn2003]) and, for comparison,
// one-step-late EM ([Green1990]). docs/pet.md.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "compute/core/enum_name.hpp"
#include "compute/pet/prior.hpp"
#include "compute/pet/subsets.hpp"

namespace tomo::pet {

enum class Algorithm { mlem, osem, map_rdp, osl_rdp };
inline constexpr std::array<EnumName<Algorithm>, 4> kAlgorithmNames{{{"mlem", Algorithm::mlem},
                                                                     {"osem", Algorithm::osem},
                                                                     {"map-rdp", Algorithm::map_rdp},
                                                                     {"osl-rdp", Algorithm::osl_rdp}}};
// The algorithm's name in progress lines and logs.
inline const char* algorithm_title(Algorithm a) {
  switch (a) {
    case Algorithm::mlem: return "ML-EM";
    case Algorithm::osem: return "OSEM";
    case Algorithm::map_rdp: return "MAP-RDP";
    case Algorithm::osl_rdp: return "OSL-RDP";
  }
  return "";
}
inline bool uses_prior(Algorithm a) { return a == Algorithm::map_rdp || a == Algorithm::osl_rdp; }

// BSREM's diagonal preconditioner D (docs/pet.md): em_prior = x / (s + β'·x·∂²R/∂x²), the EM
// preconditioner with the prior's curvature added, so that the prior's part of a step is at most
// a Newton step per voxel; em = x / s, the EM preconditioner alone. With λ = 1, em makes steps
// along the prior's stiff directions that overshoot and grow any float rounding by orders of
// magnitude per iteration; em_prior keeps MAP as reproducible as ML-EM.
enum class Preconditioner { em_prior, em };
inline constexpr std::array<EnumName<Preconditioner>, 2> kPreconditionerNames{
    {{"em-prior", Preconditioner::em_prior}, {"em", Preconditioner::em}}};

struct ReconOptions {
  Algorithm algorithm = Algorithm::mlem;
  int iterations = 10;
  int subsets = 1;
  SubsetOrder subset_order = SubsetOrder::sequential;
  std::uint64_t subset_seed = 1;  // SubsetOrder::random
  RdpParams prior;
  // BSREM relaxation λ_n = relaxation / (1 + relaxation_decay·(n − 1)) in iteration n: Σλ_n = ∞
  // and Σλ_n² < ∞, the condition of [Ahn2003]'s convergence theorem.
  double relaxation = 1.0;
  double relaxation_decay = 0.02;
  Preconditioner preconditioner = Preconditioner::em_prior;
};

// One problem's data and operator, split into subsets, on its backend. The image lives in the
// backend; the algorithms move it to the host only where the prior needs it.
class SubsetPrimitives {
 public:
  virtual ~SubsetPrimitives() = default;
  virtual int subset_count() const = 0;
  virtual std::size_t voxel_count() const = 0;
  virtual void set_image(std::span<const double> x) = 0;
  virtual std::vector<double> image() = 0;
  // s_k = Σ_{i∈k} a_ij, 0 outside the field of view: computed once by the backend and kept.
  virtual std::vector<double> sensitivity(int subset) = 0;
  // The EM step of one subset on the backend: x_j ← x_j · B_kj / s_kj (0 where s_kj = 0).
  virtual void em_step(int subset) = 0;
  // B_kj = Σ_{i∈k} a_ij y_i / ȳ_i at the backend's image (terms with ȳ_i ≤ 0 count 0).
  virtual std::vector<double> back_ratio(int subset) = 0;
};

// Where the algorithm is: iteration (1-based), the position within the iteration (1-based) and
// the subset visited there.
struct Step {
  int iteration = 0, position = 0, positions = 0, subset = 0;
};
struct ReconHooks {
  std::function<void(const Step&)> after_subset;  // progress
  std::function<bool(int)> after_iteration;       // false stops after this iteration
};

// Runs `o.iterations` iterations from the backend's current image. `prior` (configured with the
// grid, γ, ε and κ) is needed by map-rdp and osl-rdp. Returns the iterations run.
int reconstruct(SubsetPrimitives& op, const ReconOptions& o, PriorOperator* prior, const ReconHooks& hooks = {});

// The weight the prior gets in the objective L(x) − β' R(x): β' = β·s̄ with s̄ the mean of the
// full sensitivity s over the field of view (s > 0). The likelihood's gradient B − s scales with
// s, which differs by orders of magnitude between the problems (strip's is 1, glpet's a
// detection probability), while ∇R of an image and of any multiple of it are alike: so one β
// means the same smoothing in glpet, safir and strip.
double prior_weight(double beta, std::span<const double> s);

// The BSREM relaxation of iteration n (1-based).
double relaxation(const ReconOptions& o, int iteration);

}  // namespace tomo::pet
