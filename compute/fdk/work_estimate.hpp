// The cpu backend's cost of an fdk run, for "auto" falling back to the cpu: how long to expect.
#pragma once
#include "compute/core/registry.hpp"
#include "compute/fdk/config.hpp"

namespace tomo::fdk {

// FDK: L³·views voxel updates of the back-projection (about 8e7 per core-second on the cpu
// backend, 96³ from 124 views), plus the analytic projections when simulated (one ray costs
// about 14 voxel updates). Iterative algorithms: each iteration projects forward and back along
// every detector ray through L samples (about 3e7 ray samples per core-second, 64³ from 124
// views of 312×240, SIRT), plus half an iteration of set-up (row and column sums).
WorkEstimate estimate_work(const FdkConfig& c);

}  // namespace tomo::fdk
