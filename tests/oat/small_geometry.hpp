// Small oat acquisitions for the tests (seconds on two cores): rings × views on a sphere, a
// cubic grid about the origin, the time window that covers the support.
#pragma once
#include <random>
#include <vector>

#include "compute/oat/geometry.hpp"
#include "compute/oat/phantom.hpp"

namespace tomo::oat::test {

inline OatGeometry small_geometry(int n = 12, double voxel = 1.0, int rings = 4, int views = 8, double radius = 20.0,
                                  double fs = 5.0, EirKind eir = EirKind::none) {
  OatGeometry g;
  g.grid = Grid3::centred({n, n, n}, {voxel, voxel, voxel});
  set_rings_views(g, rings, views, radius);
  g.c0_mm_per_us = 1.5;
  g.gruneisen = 0.8;
  g.eir.kind = eir;
  if (eir == EirKind::gaussian) {
    g.eir.sigma_us = 0.3;
    g.eir.delay_us = 1.2;
    g.eir.taps = gaussian_eir_taps(g.eir, 1.0 / fs);
  }
  g.time = covering_time_axis(g, fs, 1.0);
  return g;
}

// Two overlapping smooth spheres inside small_geometry's grids (the PLS tests' phantom).
inline OatPhantom two_spheres() {
  OatPhantom ph;
  ph.spheres = {{{1.5, -1.0, 0.5}, 3.0, 1.0, 0.7}, {{-3.0, 2.5, -1.5}, 1.8, 1.5, 0.6}};
  return ph;
}

// Uniform values in [0.5, 1.5): positive, so ⟨Ax, y⟩ and ⟨x, Aᵀy⟩ do not cancel.
inline std::vector<double> random_positive(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  std::vector<double> v(n);
  for (double& x : v) x = u(rng);
  return v;
}

}  // namespace tomo::oat::test
