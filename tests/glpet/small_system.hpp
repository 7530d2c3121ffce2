// Small glpet systems for fast tests: 8×8 modules (4 mm pitch) at z = ±40 mm facing
// each other, 16³ voxels of 2 mm between them, R = 2.
#pragma once
#include "compute/glpet/geometry.hpp"

namespace tomo::glpet::test {

inline Module plane_module(double z, double nz, int n = 8, double pitch = 4.0) {
  Module m;
  m.centre = {0, 0, z};
  m.normal = {0, 0, nz};
  m.axis_a = {1, 0, 0};
  m.axis_t = {0, 1, 0};
  m.n_a = m.n_t = n;
  m.pitch_a = m.pitch_t = pitch;
  return m;
}

inline SystemModel small_system(int voxels = 16, double voxel_mm = 2.0, int R = 2, int K = 16) {
  SystemModel s;
  s.scanner.pairs.push_back(ModulePair{{plane_module(-40, 1), plane_module(40, -1)}});
  s.grid = Grid3::centred({voxels, voxels, voxels}, {voxel_mm, voxel_mm, voxel_mm});
  s.sigma_t = VolumeF(s.grid, 0.0f);
  s.R = R;
  s.N = 1;
  s.K = K;
  return s;
}

}  // namespace tomo::glpet::test
