// Flat- and dark-field correction of raw detector intensities, as detectors hand them out:
// transmission T = (I − D)/(F − D) with the flat F (beam on, no object) and the dark D (beam off)
// each averaged over their images, then the line integral −ln T.
#pragma once
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "compute/fdk/raw_stack.hpp"

namespace tomo::fdk {

// The mean of a stack's images (rows × cols).
std::vector<float> mean_image(const RawStack& s);

struct FlatFieldCounts {
  std::size_t clamped = 0;  // T below 1e-6 (photon starvation, I ≤ D) taken as 1e-6 (−ln T = 13.8)
  std::size_t dead = 0;     // pixels with F ≤ D: no beam to divide by; their line integral is 0
};

// In place: intensities → −ln T. `dark` empty means D = 0. Both images must have the stack's
// rows × cols (InputError prefixed with `where` naming both sizes otherwise). Warns with the counts.
FlatFieldCounts flat_dark_to_line_integrals(RawStack& s, std::span<const float> flat, std::span<const float> dark,
                                            const std::string& where);

}  // namespace tomo::fdk
