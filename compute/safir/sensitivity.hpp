// Sensitivity s_j = Σ_i a_ij over all crystal pairs of the scanner (eq. (10)'s denominator,
// open point 3): back-projections of ones by the chosen backend, over 1/8 of the ordered pairs
// when the scanner and image share the 4 quarter turns and the z mirror (docs/safir.md).
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "compute/safir/projector.hpp"

namespace tomo::safir {

enum class SensitivityMode { symmetric, all_pairs };

// The crystals a of the ordered pairs (a, b) that one rank of several back-projects: those of
// index i with i mod ranks = rank in the list of a's the whole sum walks. The ranks' sums add up
// to the whole (docs/multigpu.md, "safir and strip").
struct PairShare {
  int rank = 0;
  int ranks = 1;
};

// Whether the 8-fold symmetry holds: crystals % 4 == 0 and nx == ny (the box is centred).
bool sensitivity_symmetry_applies(const Scanner& sc, const ImageBox& box);

// Uses (and leaves) the operator's event list; restore the events afterwards.
// `pairs_per_call` bounds the pairs uploaded at once.
std::vector<double> compute_sensitivity(ListModeOperator& op, const Scanner& sc, const ImageBox& box,
                                        SensitivityMode mode = SensitivityMode::symmetric,
                                        std::size_t pairs_per_call = std::size_t(1) << 22, PairShare share = {});

// Σ_l w_l a_lj over every LOR l = (a, b): the sensitivity with each LOR's normalisation ·
// attenuation factor w(a, b) = w(b, a) (docs/pet.md). Every ordered pair is projected (weights
// need not share the scanner's symmetry), eight times the symmetric mode's work.
std::vector<double> compute_weighted_sensitivity(ListModeOperator& op, const Scanner& sc, const ImageBox& box,
                                                 const std::function<double(std::uint32_t, std::uint32_t)>& weight,
                                                 std::size_t pairs_per_call = std::size_t(1) << 22,
                                                 PairShare share = {});

}  // namespace tomo::safir
