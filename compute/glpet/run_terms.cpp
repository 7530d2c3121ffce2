#include "compute/glpet/run_terms.hpp"

#include <string>
#include <utility>
#include <vector>

namespace tomo::glpet {

pet::ForwardTerms lor_terms(const GlpetScene& g, std::span<const float> y) {
  pet::ForwardTerms t;
  const pet::CorrectionOptions& o = g.corrections;
  const std::size_t lors = y.size();
  if (!o.normalisation.empty()) t.multiplicative = pet::read_term_file(o.normalisation, lors, "glpet.normalisation");
  if (!o.randoms.given() && !o.scatter.given()) return t;
  double prompts = 0;
  for (float c : y) prompts += c;
  t.additive.assign(lors, (o.randoms.fraction + o.scatter.fraction) * prompts / double(lors));
  for (const auto& [file, key] : {std::pair{o.randoms.file, "glpet.randoms.file"}, std::pair{o.scatter.file, "glpet.scatter.file"}})
    if (!file.empty()) {
      const std::vector<double> v = pet::read_term_file(file, lors, key);
      for (std::size_t l = 0; l < lors; ++l) t.additive[l] += v[l];
    }
  return t;
}

}  // namespace tomo::glpet
