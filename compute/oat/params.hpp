// Host-side conversion of an OatGeometry into the plain parameter structs of kernel_math.hpp
// (double for cpu, float for CUDA): grid, per-transducer shell frames, patch edge, FBP weights.
#pragma once
#include <cmath>
#include <vector>

#include "compute/oat/geometry.hpp"
#include "compute/oat/kernel_math.hpp"
#include "compute/oat/model.hpp"

namespace tomo::oat {

template <class T>
GridParams<T> grid_params(const OatGeometry& g) {
  return {T(g.grid.origin_mm[0]), T(g.grid.origin_mm[1]), T(g.grid.origin_mm[2]), T(g.voxel_mm()),
          g.grid.dims[0],         g.grid.dims[1],         g.grid.dims[2]};
}

// Radius of the ball the shells are cut to: the support plus a voxel diagonal, so every voxel
// whose centre lies in the support is seen by all of its patches.
inline double cap_radius_mm(const OatGeometry& g) { return g.support_mm() + std::sqrt(3.0) * g.voxel_mm(); }

inline double patch_mm(const OatGeometry& g, const ModelOptions& o) { return o.patch_factor * g.voxel_mm(); }

// Frames computed in double, then rounded to T.
template <class T>
std::vector<ShellFrame<T>> shell_frames(const OatGeometry& g) {
  const Vec3d c = g.grid_centre_mm();
  const double rho = cap_radius_mm(g);
  std::vector<ShellFrame<T>> out;
  out.reserve(g.transducers.size());
  for (const Vec3d& s : g.transducers) {
    double e[3] = {c[0] - s[0], c[1] - s[1], c[2] - s[2]};
    const double D = std::sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
    if (D > 0) for (double& x : e) x /= D; else e[0] = 0, e[1] = 0, e[2] = 1;
    // u ⟂ e from the axis least aligned with e; v = e × u.
    double a[3] = {0, 0, 0};
    a[std::abs(e[0]) < std::abs(e[1]) ? (std::abs(e[0]) < std::abs(e[2]) ? 0 : 2)
                                      : (std::abs(e[1]) < std::abs(e[2]) ? 1 : 2)] = 1;
    const double ae = a[0] * e[0] + a[1] * e[1] + a[2] * e[2];
    double u[3] = {a[0] - ae * e[0], a[1] - ae * e[1], a[2] - ae * e[2]};
    const double nu = std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (double& x : u) x /= nu;
    const double v[3] = {e[1] * u[2] - e[2] * u[1], e[2] * u[0] - e[0] * u[2], e[0] * u[1] - e[1] * u[0]};
    out.push_back({T(s[0]), T(s[1]), T(s[2]), T(e[0]), T(e[1]), T(e[2]), T(u[0]), T(u[1]), T(u[2]), T(v[0]),
                   T(v[1]), T(v[2]), T(D), T(rho)});
  }
  return out;
}

// fbp_weight per transducer, in double then rounded to T.
template <class T>
std::vector<T> fbp_weights(const OatGeometry& g) {
  std::vector<T> w(g.transducers.size());
  for (std::size_t q = 0; q < w.size(); ++q)
    w[q] = T(fbp_weight<double>(g.surface_mm2[q], g.gruneisen, g.c0_mm_per_us, g.radius_mm, g.time.dt_us()));
  return w;
}

}  // namespace tomo::oat
