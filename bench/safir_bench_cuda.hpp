// bench_safir's kernel breakdown of the cuda backend: each pass of an ML-EM iteration (tiled and
// fused) and the work outside them timed on its own with CUDA events, beside the probes of the
// ceilings they are bound by (global atomics and gathers, shared-memory atomics), in the same run.
#pragma once
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "compute/safir/scanner.hpp"

namespace tomo::safir::bench {

// Prints the breakdown table; null JSON without CUDA or a device. `voxels_per_event`: the
// walked voxels per event (the probes do as many accesses); `reps`: timed launches per kernel.
nlohmann::json cuda_breakdown(const Scanner& sc, const ImageBox& box, std::span<const Event> events,
                              double voxels_per_event, int reps);

}  // namespace tomo::safir::bench
