// safir's correction terms (corrections.hpp).
#include "compute/safir/corrections.hpp"

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/safir/mlem.hpp"

namespace tomo::safir {

Corrections::Corrections(const pet::CorrectionOptions& o, const Scanner& sc, std::size_t events)
    : sc_(sc), positions_(sc.positions()), o_(o), any_(o.any()) {
  if (!o.attenuation_map.empty()) mu_ = pet::AttenuationMap::read(o.attenuation_map, "safir.attenuation_map");
  if (!o.normalisation.empty())
    efficiency_ = pet::read_term_file(o.normalisation, sc.crystal_count(), "safir.normalisation", true);
  if (!o.randoms.file.empty()) randoms_ = pet::read_term_file(o.randoms.file, events, "safir.randoms.file");
  if (!o.scatter.file.empty()) scatter_ = pet::read_term_file(o.scatter.file, events, "safir.scatter.file");
}

double Corrections::lor_factor(std::uint32_t a, std::uint32_t b) const {
  double f = 1.0;
  if (!efficiency_.empty()) f *= efficiency_[a] * efficiency_[b];
  if (mu_) f *= mu_->survival(positions_[a], positions_[b]);
  return f;
}

pet::ForwardTerms Corrections::event_terms(std::span<const Event> events, std::span<const std::size_t> permutation,
                                           const std::vector<Frame>& frames, std::uint64_t delayed) const {
  pet::ForwardTerms t;
  if (!any_) return t;
  const std::size_t n = events.size();
  if (multiplicative()) {
    t.multiplicative.resize(n);
#pragma omp parallel for schedule(dynamic, 4096)
    for (std::int64_t p = 0; p < std::int64_t(n); ++p) t.multiplicative[p] = lor_factor(events[p].a, events[p].b);
  }
  t.additive.assign(n, 0.0);
  const double lors = sc_.lor_count();
  for (const Frame& f : frames) {
    const double share = n == 0 ? 0.0 : double(f.count) / double(n);
    const double r = o_.randoms.fraction > 0 ? o_.randoms.fraction * double(f.count) / lors
                                             : double(delayed) * share / lors;
    const double s = o_.scatter.fraction * double(f.count) / lors;
    for (std::size_t p = f.first; p < f.first + f.count; ++p) {
      const std::size_t i = permutation[p];
      t.additive[p] = (randoms_.empty() ? r : randoms_[i]) + (scatter_.empty() ? s : scatter_[i]);
    }
  }
  return t;
}

}  // namespace tomo::safir
