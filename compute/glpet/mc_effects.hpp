// The detector effects the glpet Monte-Carlo adds to its LOR histogram of trues, for the tests
// of the forward model's terms (docs/pet.md): detection efficiency per LOR (each true kept with
// probability n_l), randoms and scatter. Randoms and scatter are Poisson counts with the same
// mean on every LOR (a smooth background by a simple model, not scatter physics), making up the
// given fractions of the prompts.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

namespace tomo::glpet {

struct McEffects {
  std::vector<double> efficiency;  // per LOR in [0, 1]; empty: 1
  double randoms_fraction = 0;     // share of the prompts
  double scatter_fraction = 0;
  std::uint64_t seed = 1;
  bool any() const { return !efficiency.empty() || randoms_fraction > 0 || scatter_fraction > 0; }
};

struct McEffectCounts {
  double trues = 0, randoms = 0, scattered = 0;
};

// In place, deterministic for the seed. Counts are rounded to whole numbers first (a scaled
// histogram's fractions are drawn as Bernoulli trials).
McEffectCounts apply_effects(std::vector<float>& counts, const McEffects& e);

}  // namespace tomo::glpet
