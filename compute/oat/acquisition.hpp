// The data a run reconstructs: simulated from the phantom (independent of H) or read from a
// file, with the geometry completed from the file (positions, samples, fs, c₀).
#pragma once
#include <vector>

#include "compute/oat/config.hpp"

namespace tomo::oat {

struct Acquisition {
  OatGeometry geometry;
  std::vector<double> data;     // u[q·K + k]
  std::vector<double> phantom;  // voxel values when simulated, else empty
  double noise_sigma = 0;
  bool simulated = false;
};

Acquisition acquire(const OatConfig& c);

}  // namespace tomo::oat
