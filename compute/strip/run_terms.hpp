// The per-event terms of a strip run's correction keys (docs/pet.md), as the CLI's run and the
// Python reconstruction both form them.
#pragma once
#include <span>

#include "compute/pet/attenuation.hpp"
#include "compute/pet/corrections.hpp"
#include "compute/strip/config.hpp"
#include "compute/strip/normalisation.hpp"

namespace tomo::strip {

// The additive counts of strip.randoms / strip.scatter per event (empty without them): a
// fraction f of the events spread uniformly over the event space (density f·N / (L²·4R)) or a
// .npy of densities per event, in the projection's units (additive_counts, with the sensitivity
// s); with attenuation `mu` or normalisation `efficiency` (either may be null) each event's
// survival·efficiency as the multiplicative term.
pet::ForwardTerms background_terms(const StripConfig& c, std::span<const Event> events, std::span<const double> s,
                                   const pet::AttenuationMap* mu, const StripEfficiency* efficiency);

}  // namespace tomo::strip
