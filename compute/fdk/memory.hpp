// fdk's host-memory estimate, made from L and the geometry before projections are
// simulated or the volume allocated .
#pragma once
#include <filesystem>

#include "compute/core/memory.hpp"
#include "compute/fdk/geometry.hpp"
#include "compute/fdk/iterative.hpp"

namespace tomo::fdk {

// Dominant host buffers: the float projection stack (projections × rows × columns, when
// simulated) and `volumes` float volumes of L³ (result, truth, HU copies, cpu reference).
// The keys are named from `l_key` ("fdk.L") and `geometry_prefix` ("fdk.geometry.").
MemoryEstimate estimate_memory(int L, const CArmGeometry& g, bool simulated, int volumes, const std::string& l_key,
                               const std::string& geometry_prefix);

// A user's raw stack (fdk.raw.projections): its payload read (file size) and held as floats (at
// most twice that, for uint16), so three times the file size at the peak.
void add_raw_stack(MemoryEstimate& e, const std::filesystem::path& stack, const std::string& key);

// The iterative algorithms' buffers on `grid` for the geometry's stack: float volumes (iterate,
// momentum, gradient, column sums, TV's dual of 3; OS-SART one column sum per subset), float
// stacks (data, residual, row sums), the cpu projector's double copies and its per-thread
// back-projection volumes (at most 512 MiB).
void add_iterative(MemoryEstimate& e, const Grid3& grid, const CArmGeometry& g, const IterativeOptions& o);

}  // namespace tomo::fdk
