// ML-EM driver ([Bialas2015] eq. 5).
#include "compute/strip/mlem.hpp"

#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::strip {

std::vector<double> run_mlem(ListModeProjector& op, std::size_t pixels, int iterations,
                             const std::function<void(int, const std::vector<double>&)>& after_iteration) {
  std::vector<double> rho(pixels, 1.0);  // flat start: every pixel may emit
  op.set_image(rho);
  for (int t = 1; t <= iterations; ++t) {
    op.iterate();
    if (after_iteration || t == iterations) rho = op.image();
    for (double v : rho)
      if (!std::isfinite(v)) throw Error(str_cat("strip ML-EM: non-finite pixel after iteration ", t));
    if (after_iteration) after_iteration(t, rho);
  }
  if (iterations <= 0) rho = op.image();
  return rho;
}

std::vector<double> rho_from_rho_prime(std::span<const double> rho_prime, std::span<const double> s,
                                       double threshold, std::span<const std::uint8_t> outside) {
  if (!outside.empty() && outside.size() != rho_prime.size())
    throw Error(str_cat("strip: field-of-view mask of ", outside.size(), " pixels for an image of ", rho_prime.size()));
  const double floor = sensitivity_floor<double>(s, threshold);
  std::vector<double> out(rho_prime.size(), 0.0);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const bool in = outside.empty() || !outside[i];
    out[i] = in && s[i] > 0 && s[i] >= floor ? rho_prime[i] / s[i] : 0.0;
  }
  return out;
}

}  // namespace tomo::strip
