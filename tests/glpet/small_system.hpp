// Small glpet systems for fast tests: 8×8 modules (4 mm pitch) at z = ±40 mm facing
// each other, 16³ voxels of 2 mm between them, R = 2; and random test vectors.
#pragma once
#include <cstdint>
#include <vector>

#include "compute/glpet/geometry.hpp"
#include "compute/glpet/monte_carlo.hpp"
#include "compute/glpet/ring.hpp"

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

// The adjoint tests' system: the small system with a water cylinder (no second material).
inline SystemModel water_cylinder_system() {
  SystemModel sys = small_system();
  for (int k = 0; k < 16; ++k)
    for (int j = 0; j < 16; ++j)
      for (int i = 0; i < 16; ++i) {
        const Vec3 c = sys.grid.centre(i, j, k);
        if (c[0] * c[0] + c[1] * c[1] < 12.0 * 12.0) sys.sigma_t.at(i, j, k) = 0.0096f;  // water
      }
  return sys;
}

// A small ring ([glpet.ring], docs/glpet.md §1): `modules` modules of 4 × 4 detectors of
// 4 mm at `radius` mm around z, R = 2, K = 8, on `grid`, with a water cylinder along z of
// semi-axes `water` (mm).
inline SystemModel small_ring_system(int modules, double radius, const Grid3& grid, const Vec3& water) {
  Ring ring;
  ring.modules = modules;
  ring.radius_mm = radius;
  ring.n_a = ring.n_t = 4;
  ring.phase_deg = 1.234;  // off the grid's symmetry, as the ring scenes: no line on a detector edge
  SystemModel sys;
  sys.scanner = ring_scanner(ring);
  sys.grid = grid;
  sys.R = 2;
  sys.K = 8;
  Phantom att;
  Shape cyl;
  cyl.kind = Shape::Kind::Cylinder;
  cyl.semi_axes = water;
  cyl.value = 0.0096;
  att.shapes.push_back(cyl);
  sys.sigma_t = att.voxelize(sys.grid, 2);
  return sys;
}

// Monte-Carlo counts of a hot ball (radius 6 mm at (4, −4, 2)) on `sys`: independent data for
// the ML-EM tests (the multi-device ones among them).
inline std::vector<float> hot_ball_counts(const SystemModel& sys, std::int64_t histories, std::uint64_t seed) {
  Phantom act;
  Shape s;
  s.centre = {4, -4, 2};
  s.semi_axes = {6, 6, 6};
  s.value = 1.0;
  act.shapes.push_back(s);
  McOptions mc;
  mc.histories = histories;
  mc.seed = seed;
  return simulate(sys.scanner, sys.sigma_t, VoxelSource(act.voxelize(sys.grid, 2)), mc).counts;
}

inline std::vector<float> random_vector(std::size_t n, std::uint64_t seed) {
  CounterRng rng(seed, 0);
  std::vector<float> v(n);
  for (float& x : v) x = float(rng.uniform());
  return v;
}

}  // namespace tomo::glpet::test
