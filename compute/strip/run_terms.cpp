#include "compute/strip/run_terms.hpp"

#include <utility>
#include <vector>

#include "compute/strip/attenuation.hpp"
#include "compute/strip/background.hpp"

namespace tomo::strip {

pet::ForwardTerms background_terms(const StripConfig& c, std::span<const Event> events, std::span<const double> s,
                                   const pet::AttenuationMap* mu, const StripEfficiency* efficiency) {
  const pet::CorrectionOptions& k = c.corrections;
  if (!k.randoms.given() && !k.scatter.given()) return {};
  const StripGeometry& g = c.geometry;
  std::vector<double> density(events.size(), 0.0);
  for (const auto& [term, key] : {std::pair{&k.randoms, "strip.randoms.file"}, std::pair{&k.scatter, "strip.scatter.file"}}) {
    if (term->fraction > 0)
      for (double& d : density) d += term->fraction * double(events.size()) / event_space_volume(g);
    if (!term->file.empty()) {
      const std::vector<double> v = pet::read_term_file(term->file, events.size(), key);
      for (std::size_t e = 0; e < v.size(); ++e) density[e] += v[e];
    }
  }
  pet::ForwardTerms t;
  t.additive = additive_counts(g, events, density, s);
  if (mu || efficiency) {
    t.multiplicative.resize(events.size());
    for (std::size_t e = 0; e < events.size(); ++e)
      t.multiplicative[e] = (mu ? survival(*mu, g.R, events[e].z_u, events[e].z_d) : 1.0) *
                            (efficiency ? efficiency->pair(events[e].z_u, events[e].z_d) : 1.0);
  }
  return t;
}

}  // namespace tomo::strip
