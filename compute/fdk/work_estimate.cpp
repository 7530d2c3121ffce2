#include "compute/fdk/work_estimate.hpp"

namespace tomo::fdk {

WorkEstimate estimate_work(const FdkConfig& c) {
  const CArmGeometry& g = c.geometry;
  const double rays = double(g.projections) * g.sx * g.sy;
  const double L = c.L;
  const double simulate = c.simulated() ? 14.0 * rays : 0.0;  // in back-projection voxel updates
  if (c.algorithm == Algorithm::fdk) return {.units = L * L * L * g.projections + simulate, .cpu_units_per_core_s = 8e7};
  const double rate = 3e7;  // ray samples per core-second; the simulation converted to them
  return {.units = (c.iterative.iterations + 0.5) * rays * L + simulate * (rate / 8e7), .cpu_units_per_core_s = rate};
}

}  // namespace tomo::fdk
