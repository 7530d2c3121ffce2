// strip's host-memory estimate, made from the configuration before events are simulated.
#pragma once
#include "compute/core/memory.hpp"
#include "compute/strip/config.hpp"

namespace tomo::strip {

// Dominant host buffers: simulated events (12 bytes each) held twice (the list and the
// cpu backend's copy) and 6 images of n_y·n_z doubles (ρ', sensitivity, back-projection,
// direct, ρ and a saved iterate). Events read from a file are not counted here: the
// reader knows their number from the file size.
MemoryEstimate estimate_memory(const StripConfig& c);

}  // namespace tomo::strip
