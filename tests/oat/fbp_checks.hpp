// Shared by the GPU FBP tests (cuda_fbp_gpu_test.cpp, gl_compute_fbp_test.cpp): a geometry that
// stresses the shared-memory windows and simulated blurred-sphere data with the cpu's image.
#pragma once
#include <vector>

#include "compute/core/registry.hpp"
#include "compute/oat/model.hpp"
#include "compute/oat/phantom.hpp"

namespace tomo::oat::test {

// 13 × 11 × 19 voxels of 0.5 mm (partial 8×8×16 boxes), rings × views on a 9.13 mm sphere (the
// grid's corners at 6 mm: curved, wide windows), 19 MHz: windows of 128 samples, tiles of 16.
// Radius and rate avoid voxels at an integer k̃ from many transducers (at 9 mm and 20 MHz the
// centre voxel has k̃ = 69 from all, where fp64 rounding alone picks the sample, on every backend).
inline OatGeometry close_geometry(int rings, int views) {
  OatGeometry g;
  g.grid = Grid3::centred({13, 11, 19}, {0.5, 0.5, 0.5});
  set_rings_views(g, rings, views, 9.13);
  g.c0_mm_per_us = 1.5;
  g.gruneisen = 0.8;
  g.time = covering_time_axis(g, 19.0, 1.0);
  return g;
}

// Pressure of two blurred spheres (exact, independent of the FBP) and the cpu's FBP of it.
struct FbpCase {
  OatGeometry g;
  std::vector<double> p, ref;
};
inline FbpCase make_fbp_case(const OatGeometry& g) {
  OatPhantom ph;
  ph.spheres = {{{1.0, -0.5, 0.5}, 1.5, 1.0, 0.3}, {{-1.5, 1.0, -1.0}, 1.0, 2.0, 0.25}};
  FbpCase c{g, simulate_pressure(g, ph, Noise{}), std::vector<double>(g.grid.count())};
  auto cpu = BackendRegistry<Fbp>::instance().create("cpu");
  cpu->configure(g, FbpOptions{});
  cpu->reconstruct(c.p, c.ref);
  return c;
}

}  // namespace tomo::oat::test
