// safir's correction terms (docs/pet.md): each LOR's normalisation·attenuation factor
// ε_a·ε_b·exp(−∫μ) between the crystals' front faces, and each event's randoms and scatter
// counts, from the keys of pet::CorrectionOptions.
#pragma once
#include <optional>
#include <span>
#include <vector>

#include "compute/pet/attenuation.hpp"
#include "compute/pet/corrections.hpp"
#include "compute/safir/mlem.hpp"
#include "compute/safir/scanner.hpp"

namespace tomo::safir {

class Corrections {
 public:
  // Reads the μ-map and the files; `events` is the acquisition's event count (per-event files).
  Corrections(const pet::CorrectionOptions& o, const Scanner& sc, std::size_t events);

  bool any() const { return any_; }
  bool multiplicative() const { return mu_.has_value() || !efficiency_.empty(); }
  // ε_a·ε_b·exp(−∫μ) of the LOR between crystals a and b.
  double lor_factor(std::uint32_t a, std::uint32_t b) const;

  // The terms of `events` (in the operator's order: position p holds acquisition event
  // permutation[p]): the LOR factor and the randoms + scatter counts. Randoms: the file's, or the
  // fraction's f·(frame's events)/LORs, else the delayed window's `delayed`·(frame's share)/LORs.
  pet::ForwardTerms event_terms(std::span<const Event> events, std::span<const std::size_t> permutation,
                                const std::vector<Frame>& frames, std::uint64_t delayed) const;

 private:
  const Scanner& sc_;
  std::vector<std::array<double, 3>> positions_;
  std::optional<pet::AttenuationMap> mu_;
  std::vector<double> efficiency_;  // per crystal; empty: 1
  pet::CorrectionOptions o_;
  std::vector<double> randoms_, scatter_;  // per acquisition event, from files
  bool any_ = false;
};

}  // namespace tomo::safir
