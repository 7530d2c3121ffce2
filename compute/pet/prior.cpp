// Choosing and configuring the prior backend of a reconstruction.
#include "compute/pet/prior.hpp"

#include "compute/core/registry.hpp"

namespace tomo::pet {

std::string prior_backend_for(const std::string& b) {
  if (b == "gl" || b == "gl-compute") return "gl-compute";
  if (b == "cuda") return "cuda";
  return "cpu";
}

std::unique_ptr<PriorOperator> make_prior(const std::string& problem_backend, const PriorGrid& grid,
                                          const RdpParams& params, std::span<const double> sensitivity) {
  auto op = BackendRegistry<PriorOperator>::instance().create(prior_backend_for(problem_backend));
  std::vector<double> kappa(sensitivity.size());
  for (std::size_t j = 0; j < kappa.size(); ++j) kappa[j] = sensitivity[j] > 0 ? 1.0 : 0.0;
  op->configure(grid, params, kappa);
  return op;
}

}  // namespace tomo::pet
