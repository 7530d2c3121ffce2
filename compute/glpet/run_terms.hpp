// The per-LOR terms of a glpet run's correction keys (docs/pet.md), as the CLI's run and the
// Python reconstruction both form them.
#pragma once
#include <span>

#include "compute/glpet/config.hpp"
#include "compute/pet/corrections.hpp"

namespace tomo::glpet {

// n from glpet.normalisation; r + s from the files or the fractions f of the prompts y, f·Σy / LORs
// on every LOR (attenuation is in A, not here).
pet::ForwardTerms lor_terms(const GlpetScene& g, std::span<const float> y);

}  // namespace tomo::glpet
