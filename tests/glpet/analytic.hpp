// Analytic detection probabilities for a point source between two parallel planar
// modules (normals ±z, axes x/y) without attenuation: the solid angle of the part of
// detector (i0,j0) that the shadow of detector (i1,j1) through p covers, over 2π.
#pragma once
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "compute/glpet/geometry.hpp"

namespace tomo::glpet::test {

// Solid angle of the rectangle [x0,x1]×[y0,y1] in a plane at distance D from p (p's
// foot point at (px, py)): Σ±atan(xy / (D·sqrt(x²+y²+D²))) over the corners.
inline double rectangle_solid_angle(double x0, double x1, double y0, double y1, double px, double py, double D) {
  auto F = [&](double x, double y) {
    x -= px;
    y -= py;
    return std::atan(x * y / (D * std::sqrt(x * x + y * y + D * D)));
  };
  return F(x1, y1) - F(x0, y1) - F(x1, y0) + F(x0, y0);
}

// Expected detection probability per LOR of the pair (atlas order) for one emission at p.
inline std::vector<double> point_source_probabilities(const ModulePair& pair, const Vec3& p) {
  const Module& m0 = pair.modules[0];
  const Module& m1 = pair.modules[1];
  const double z0 = m0.centre[2], z1 = m1.centre[2];
  const double mu = (z0 - p[2]) / (z1 - p[2]);  // shadow scale (negative: through p)
  const Vec3 c0 = m0.corner(), c1 = m1.corner();
  std::vector<double> out(pair.lor_count(), 0.0);
  for (int i0 = 0; i0 < m0.n_a; ++i0)
    for (int j0 = 0; j0 < m0.n_t; ++j0)
      for (int i1 = 0; i1 < m1.n_a; ++i1)
        for (int j1 = 0; j1 < m1.n_t; ++j1) {
          const double ax = c1[0] + i1 * m1.pitch_a, bx = ax + m1.pitch_a;
          const double ay = c1[1] + j1 * m1.pitch_t, by = ay + m1.pitch_t;
          double sx0 = p[0] + mu * (ax - p[0]), sx1 = p[0] + mu * (bx - p[0]);
          double sy0 = p[1] + mu * (ay - p[1]), sy1 = p[1] + mu * (by - p[1]);
          if (sx0 > sx1) std::swap(sx0, sx1);
          if (sy0 > sy1) std::swap(sy0, sy1);
          const double x0 = std::max(sx0, c0[0] + i0 * m0.pitch_a), x1 = std::min(sx1, c0[0] + (i0 + 1) * m0.pitch_a);
          const double y0 = std::max(sy0, c0[1] + j0 * m0.pitch_t), y1 = std::min(sy1, c0[1] + (j0 + 1) * m0.pitch_t);
          if (x0 >= x1 || y0 >= y1) continue;
          out[pair.lor_index(i0, j0, i1, j1)] =
              rectangle_solid_angle(x0, x1, y0, y1, p[0], p[1], std::fabs(p[2] - z0)) / (2 * std::numbers::pi);
        }
  return out;
}

}  // namespace tomo::glpet::test
