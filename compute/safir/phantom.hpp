// The analytic phantom of the safir simulation: Derenzo-type sphere groups (1.0–4.0 mm, [Locans2017]
// §5.4) in a Ø50 × 150 mm polyethylene cylinder, a warm background and a small hot spot (§5.2).
#pragma once
#include <array>
#include <string>
#include <vector>

#include "compute/core/volume.hpp"

namespace tomo {
class Scene;
}

namespace tomo::safir {

struct Sphere {
  std::array<double, 3> centre{};
  double radius = 1.0;
  double activity = 1.0;  // concentration, arbitrary units per mm³ (added to the background)
};

struct Phantom {
  std::vector<Sphere> spheres;
  double cylinder_radius_mm = 25.0;       // rat phantom Ø50 mm
  double cylinder_half_length_mm = 75.0;  // 150 mm long
  double background = 0.0;                // concentration in the cylinder (seed: 0)
  double mu_per_mm = 0.0096;              // 511 keV in polyethylene/water; 0 = no attenuation

  // The Derenzo groups: six 60° sectors of a triangular lattice (centre spacing two diameters)
  // in the plane z = z0, inside radius `pattern_radius`.
  static std::vector<Sphere> derenzo(double pattern_radius = 22.0, double z0 = 0.0, double activity = 1.0);
  static Phantom from_scene(const Scene& s);
  // Concentration at a point (spheres add to the background inside the cylinder).
  double concentration(const std::array<double, 3>& p) const;
  // Mean concentration per voxel, `sub`³ sub-samples per voxel.
  VolumeD rasterize(const Grid3& g, int sub = 3) const;
  // Relative activity of each source: background first (cylinder volume × concentration), then spheres.
  std::vector<double> source_weights() const;
};

// Diameters of the six Derenzo groups ([Locans2017] §5.4), mm.
inline constexpr std::array<double, 6> kDerenzoDiameters{1.0, 1.2, 1.6, 2.4, 3.2, 4.0};

}  // namespace tomo::safir
