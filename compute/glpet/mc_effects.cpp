// Detector effects on the Monte-Carlo histogram (mc_effects.hpp).
#include "compute/glpet/mc_effects.hpp"

#include <cmath>
#include <random>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::glpet {

McEffectCounts apply_effects(std::vector<float>& counts, const McEffects& e) {
  McEffectCounts out;
  if (!e.efficiency.empty() && e.efficiency.size() != counts.size())
    throw InputError(str_cat("glpet.mc.efficiency: ", e.efficiency.size(), " values for ", counts.size(), " LORs"));
  if (e.randoms_fraction + e.scatter_fraction >= 1.0)
    throw InputError("glpet.mc: randoms and scatter fractions must add up to less than 1");
  std::mt19937_64 rng(e.seed ^ 0xeff3c75ULL);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  for (std::size_t l = 0; l < counts.size(); ++l) {
    double c = std::floor(double(counts[l]));
    if (u01(rng) < double(counts[l]) - c) c += 1;
    if (!e.efficiency.empty() && c > 0) c = double(std::binomial_distribution<std::int64_t>(std::int64_t(c), e.efficiency[l])(rng));
    counts[l] = float(c);
    out.trues += c;
  }
  const double trues_share = 1.0 - e.randoms_fraction - e.scatter_fraction;
  const double per_lor_r = e.randoms_fraction / trues_share * out.trues / double(counts.size());
  const double per_lor_s = e.scatter_fraction / trues_share * out.trues / double(counts.size());
  for (float& c : counts) {
    if (per_lor_r > 0) {
      const double r = double(std::poisson_distribution<std::int64_t>(per_lor_r)(rng));
      c += float(r), out.randoms += r;
    }
    if (per_lor_s > 0) {
      const double s = double(std::poisson_distribution<std::int64_t>(per_lor_s)(rng));
      c += float(s), out.scattered += s;
    }
  }
  return out;
}

}  // namespace tomo::glpet
