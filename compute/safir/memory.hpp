// safir's host-memory estimate, made from the configuration before events are simulated and
// again once the frames are known, so a huge legal-looking scene stops at once naming its keys.
#pragma once
#include <cstddef>

#include "compute/core/memory.hpp"
#include "compute/safir/config.hpp"

namespace tomo::safir {

// Frames a simulated run will have: ceil(duration_s / frame_s), 1 without frames.
std::size_t expected_frames(const SafirConfig& c);

// Dominant host buffers: simulated events (8-byte crystal pair + 8-byte time) held twice (the
// list and the cpu backend's copy); per frame two images of doubles (image, significance map)
// kept to the end for the 4D NIfTI, and that file's float32 buffer; and 8 working images (sensitivity, phantom, the 4 sphere
// sums, the backend's image and accumulator). Events read from a file are not counted here:
// the reader bounds them by the file size.
MemoryEstimate estimate_memory(const SafirConfig& c, std::size_t frames);

}  // namespace tomo::safir
