// musr's host-memory estimate, made from the configuration before histograms are simulated.
#pragma once
#include "compute/core/memory.hpp"
#include "compute/musr/config.hpp"

namespace tomo::musr {

// Dominant host buffers of a simulated fit: the histograms (int32 counts, held as the PSI-BIN
// file and its copy read back) and the fitted bins (t, y, σ as doubles) with the backend's copy
// of (y, 1/σ²). An msr read from disk is not counted here: its data files bound it (PSI-BIN:
// 16 histograms of ≤ 32767 bins each).
MemoryEstimate estimate_memory(const MusrConfig& c);

}  // namespace tomo::musr
