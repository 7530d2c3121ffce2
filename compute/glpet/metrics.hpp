// glpet image metrics: NRMSE against the phantom, activity centroid, and per-sphere
// contrast (ROI of each activity shape after the first vs the background of the first).
#pragma once
#include <span>
#include <string>
#include <vector>

#include "compute/core/phantom.hpp"
#include "compute/core/volume.hpp"

namespace tomo::glpet {

// ||x − ref||₂ / ||ref||₂: tomo::relative_l2 under the name the glpet report uses (no
// least-squares scale, unlike tomo::nrmse: the truth is already in the reconstruction's units).
double nrmse(std::span<const float> x, std::span<const float> ref);
// Activity-weighted mean position (mm).
Vec3 centroid(const Grid3& grid, std::span<const float> x);

struct SphereContrast {
  std::string name;          // "sphere1", ...
  double contrast = 0;       // mean(ROI)/mean(background) of the image
  double contrast_true = 0;  // same on the reference
  double recovery = 0;       // (contrast − 1)/(contrast_true − 1), 0 when the truth has none
};

// Shape 0 is the background body; each further shape is a ROI (voxel centres inside).
std::vector<SphereContrast> sphere_contrasts(const Phantom& activity, const Grid3& grid, std::span<const float> x,
                                             std::span<const float> ref);

}  // namespace tomo::glpet
