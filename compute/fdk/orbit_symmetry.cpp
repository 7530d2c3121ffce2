// Turn symmetry of a circular orbit (see orbit_symmetry.hpp).
#include "compute/fdk/orbit_symmetry.hpp"

#include <algorithm>
#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::fdk {
namespace {

using Affine = std::array<double, 12>;  // 3×4 row-major: x' = A·(x, y, z, 1)

// The turn of world points about the grid's central z line: half (order 2) or a quarter of the
// given sense (order 4).
Affine turn(const Grid3& g, int order, int sense) {
  const double cx = g.origin_mm[0] + 0.5 * (g.dims[0] - 1) * g.voxel_mm[0];
  const double cy = g.origin_mm[1] + 0.5 * (g.dims[1] - 1) * g.voxel_mm[1];
  if (order == 2) return {-1, 0, 0, 2 * cx, 0, -1, 0, 2 * cy, 0, 0, 1, 0};
  // sense +1: (x, y) ↦ (cx − (y − cy), cy + (x − cx)), voxel (i, j) ↦ (n−1−j, i)
  if (sense > 0) return {0, -1, 0, cx + cy, 1, 0, 0, cy - cx, 0, 0, 1, 0};
  return {0, 1, 0, cx - cy, -1, 0, 0, cy + cx, 0, 0, 1, 0};
}

// P·S for a 3×4 P and an affine S (both row-major 3×4, S's implied last row 0 0 0 1).
Affine compose(const Affine& P, const Affine& S) {
  Affine out{};
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) {
      double s = c == 3 ? P[4 * r + 3] : 0.0;
      for (int k = 0; k < 3; ++k) s += P[4 * r + k] * S[4 * k + c];
      out[4 * r + c] = s;
    }
  return out;
}

// Least-squares c with P ≈ c·M and the relative error ‖P − c·M‖ / ‖P‖.
double fit(const Affine& P, const Affine& M, double* rel) {
  double pm = 0, mm = 0, pp = 0;
  for (int e = 0; e < 12; ++e) {
    pm += P[e] * M[e];
    mm += M[e] * M[e];
    pp += P[e] * P[e];
  }
  const double c = mm > 0 ? pm / mm : 0.0;
  double d = 0;
  for (int e = 0; e < 12; ++e) d += (P[e] - c * M[e]) * (P[e] - c * M[e]);
  *rel = pp > 0 ? std::sqrt(d / pp) : 1.0;
  return c;
}

OrbitSymmetry try_sense(const Grid3& g, std::span<const Affine> p, int order, int sense, double tol) {
  OrbitSymmetry s;
  const int N = static_cast<int>(p.size()), step = N / order;
  s.scale.assign(p.size(), 1.0);
  const Affine S = turn(g, order, sense);
  for (int n = 0; n < step; ++n) {
    Affine M = p[n];
    for (int r = 1; r < order; ++r) {
      M = compose(M, S);
      const int m = n + r * step;
      double rel = 0;
      const double c = fit(p[m], M, &rel);
      s.max_rel = std::max(s.max_rel, rel);
      if (!(rel <= tol) || !(c > 0)) {
        s.reason = str_cat("view ", m, " is not view ", n, " turned by ", r * 360 / order, "° about the grid's centre (",
                           "relative difference ", rel, ", scale ", c, ")");
        return s;
      }
      s.scale[m] = c;
    }
  }
  s.order = order;
  s.sense = order == 4 ? sense : 0;
  return s;
}

}  // namespace

OrbitSymmetry orbit_symmetry(const Grid3& grid, std::span<const std::array<double, 12>> p, int order, double tol) {
  if (order != 2 && order != 4) throw Error(str_cat("orbit_symmetry: order ", order, " (2 or 4)"));
  OrbitSymmetry none;
  const int N = static_cast<int>(p.size());
  if (N == 0 || N % order != 0) {
    none.reason = str_cat(N, " views, not a multiple of ", order);
    return none;
  }
  if (grid.dims[1] % 2 != 0) {
    none.reason = str_cat("the grid has ", grid.dims[1], " rows in y (even needed)");
    return none;
  }
  if (order == 4 && (grid.dims[0] != grid.dims[1] ||
                     std::abs(grid.voxel_mm[0] - grid.voxel_mm[1]) > tol * std::abs(grid.voxel_mm[0]))) {
    none.reason = str_cat("the grid's x–y section is not square (", grid.dims[0], "×", grid.dims[1], " voxels of ",
                          grid.voxel_mm[0], "×", grid.voxel_mm[1], " mm)");
    return none;
  }
  if (order == 2) return try_sense(grid, p, 2, 0, tol);
  OrbitSymmetry plus = try_sense(grid, p, 4, +1, tol);
  if (plus.order == 4) return plus;
  OrbitSymmetry minus = try_sense(grid, p, 4, -1, tol);
  if (minus.order == 4) return minus;
  return minus.max_rel < plus.max_rel ? minus : plus;  // the sense that came nearer names the failing view
}

}  // namespace tomo::fdk
