// The algorithms of the reconstruction layer (docs/pet.md).
#include "compute/pet/reconstruct.hpp"

#include <algorithm>
#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::pet {

double relaxation(const ReconOptions& o, int iteration) {
  return o.relaxation / (1.0 + o.relaxation_decay * double(iteration - 1));
}

double prior_weight(double beta, std::span<const double> s) {
  double sum = 0;
  std::size_t n = 0;
  for (double v : s)
    if (v > 0) sum += v, ++n;
  return n > 0 ? beta * sum / double(n) : 0.0;
}

namespace {

// MAP by BSREM ([Ahn2003] eq. (20)): x ← P[x + λ_n D(x) (S·∇L_k(x) − β∇R(x))] with the
// preconditioner D = x/(s + β·x·h) (s the full sensitivity, h the prior's Hessian diagonal; h = 0
// for Preconditioner::em), ∇L_k = B_k − s_k, and P the projection onto x ≥ t (t a small positive
// floor: the preconditioner needs x > 0). D is positive and bounded by x/s, as the convergence
// theorem asks. With β = 0, λ = 1 and list-mode subsets (s_k = s/S) the step is OSEM's.
void bsrem_step(SubsetPrimitives& op, const ReconOptions& o, double beta, PriorOperator& prior, int subset,
                double lambda, const std::vector<double>& s, const std::vector<double>& sk, double floor) {
  std::vector<double> x = op.image();
  const std::vector<double> b = op.back_ratio(subset);
  // Gradient and curvature from one prior pass (one upload of x, one stencil walk on a GPU).
  PriorDerivatives p;
  if (beta > 0 && o.preconditioner == Preconditioner::em_prior)
    p = prior.gradient_and_hessian(x);
  else if (beta > 0)
    p.gradient = prior.gradient(x);
  if (p.gradient.empty()) p.gradient.assign(x.size(), 0.0);
  if (p.hessian_diagonal.empty()) p.hessian_diagonal.assign(x.size(), 0.0);
  const std::vector<double>&g = p.gradient, &h = p.hessian_diagonal;
  const double S = o.subsets;
  for (std::size_t j = 0; j < x.size(); ++j) {
    if (!(s[j] > 0)) {
      x[j] = 0;
      continue;
    }
    const double step = x[j] / (s[j] + beta * x[j] * std::max(h[j], 0.0)) * (S * (b[j] - sk[j]) - beta * g[j]);
    x[j] = std::max(x[j] + lambda * step, floor);
  }
  op.set_image(x);
}

// One-step-late EM ([Green1990] eq. (9)) per subset: x ← x·B_k / (s_k + (β/S)·∂R/∂x(x_old)), the
// denominator held at ≥ s_k/10 where a strong prior would make it small or negative. Voxels the
// subset does not see (s_k = 0 < s: glpet's subsets of module pairs) keep their value; those
// outside the field of view (s = 0) are 0.
void osl_step(SubsetPrimitives& op, const ReconOptions& o, double beta, PriorOperator& prior, int subset,
              const std::vector<double>& s, const std::vector<double>& sk) {
  std::vector<double> x = op.image();
  const std::vector<double> b = op.back_ratio(subset);
  const std::vector<double> g = prior.gradient(x);
  const double w = beta / o.subsets;
  for (std::size_t j = 0; j < x.size(); ++j) {
    if (!(sk[j] > 0)) {
      if (!(s[j] > 0)) x[j] = 0;
      continue;
    }
    const double d = std::max(sk[j] + w * g[j], 0.1 * sk[j]);
    x[j] = x[j] * b[j] / d;
  }
  op.set_image(x);
}

}  // namespace

int reconstruct(SubsetPrimitives& op, const ReconOptions& o, PriorOperator* prior, const ReconHooks& hooks) {
  if (o.subsets != op.subset_count())
    throw Error(str_cat("pet: ", o.subsets, " subsets asked, the data are split into ", op.subset_count()));
  if (uses_prior(o.algorithm) && !prior) throw Error("pet: the prior operator is missing");
  std::vector<std::vector<double>> sk;
  std::vector<double> s;
  double floor = 0, beta = 0;
  if (uses_prior(o.algorithm)) {
    s.assign(op.voxel_count(), 0.0);
    for (int k = 0; k < o.subsets; ++k) {
      sk.push_back(op.sensitivity(k));
      for (std::size_t j = 0; j < s.size(); ++j) s[j] += sk.back()[j];
    }
    beta = prior_weight(o.prior.beta, s);
    // The floor of BSREM's projection: 10⁻⁶ of the start image's mean inside the field of view.
    const std::vector<double> x0 = op.image();
    double sum = 0;
    std::size_t n = 0;
    for (std::size_t j = 0; j < x0.size(); ++j)
      if (s[j] > 0) sum += x0[j], ++n;
    floor = n > 0 && sum > 0 ? 1e-6 * sum / double(n) : 1e-12;
  }
  int done = 0;
  for (int it = 1; it <= o.iterations; ++it) {
    const std::vector<int> order = subset_sequence(o.subsets, o.subset_order, o.subset_seed, it);
    const double lambda = relaxation(o, it);
    for (std::size_t p = 0; p < order.size(); ++p) {
      const int k = order[p];
      switch (o.algorithm) {
        case Algorithm::mlem:
        case Algorithm::osem: op.em_step(k); break;
        case Algorithm::map_rdp: bsrem_step(op, o, beta, *prior, k, lambda, s, sk[k], floor); break;
        case Algorithm::osl_rdp: osl_step(op, o, beta, *prior, k, s, sk[k]); break;
      }
      if (hooks.after_subset) hooks.after_subset({it, int(p) + 1, int(order.size()), k});
    }
    done = it;
    if (hooks.after_iteration && !hooks.after_iteration(it)) break;
  }
  return done;
}

}  // namespace tomo::pet
