// Analytic cone-beam projections of ellipsoid phantoms (see simulate.hpp).
#include "compute/fdk/simulate.hpp"

#include <cmath>

namespace tomo::fdk {

Phantom shepp_logan_3d(double scale_mm, double mu) {
  // value, semi-axes (a, b, c), centre (x, y, z), phi (deg, about z) — unit head.
  struct Row {
    double v, a, b, c, x, y, z, phi;
  };
  static constexpr Row rows[] = {
      {1.0, 0.6900, 0.920, 0.810, 0.0, 0.0, 0.0, 0.0},
      {-0.8, 0.6624, 0.874, 0.780, 0.0, -0.0184, 0.0, 0.0},
      {-0.2, 0.1100, 0.310, 0.220, 0.22, 0.0, 0.0, -18.0},
      {-0.2, 0.1600, 0.410, 0.280, -0.22, 0.0, 0.0, 18.0},
      {0.1, 0.2100, 0.250, 0.410, 0.0, 0.35, -0.15, 0.0},
      {0.1, 0.0460, 0.046, 0.050, 0.0, 0.1, 0.25, 0.0},
      {0.1, 0.0460, 0.046, 0.050, 0.0, -0.1, 0.25, 0.0},
      {0.1, 0.0460, 0.023, 0.050, -0.08, -0.605, 0.0, 0.0},
      {0.1, 0.0230, 0.023, 0.020, 0.0, -0.606, 0.0, 0.0},
      {0.1, 0.0230, 0.046, 0.020, 0.06, -0.605, 0.0, 0.0},
  };
  Phantom p;
  for (const Row& r : rows) {
    Shape s;
    s.kind = Shape::Kind::Ellipsoid;
    s.centre = {r.x * scale_mm, r.y * scale_mm, r.z * scale_mm};
    s.semi_axes = {r.a * scale_mm, r.b * scale_mm, r.c * scale_mm};
    s.axes = rotation_zyx_deg(r.phi, 0.0, 0.0);
    s.value = r.v * mu;
    p.shapes.push_back(s);
  }
  return p;
}

void simulate_projection(const Phantom& phantom, const CArmGeometry& g, int n, float* out) {
  const Vec3d s = g.source(n);
  const Vec3 a{s[0], s[1], s[2]};
#pragma omp parallel for schedule(dynamic, 4)
  for (int j = 0; j < g.sy; ++j)
    for (int i = 0; i < g.sx; ++i) {
      const Vec3d d = g.detector_point(n, i, j);
      out[static_cast<std::size_t>(j) * g.sx + i] =
          static_cast<float>(phantom.line_integral(a, Vec3{d[0], d[1], d[2]}));
    }
}

std::vector<float> simulate_projections(const Phantom& phantom, const CArmGeometry& g) {
  const std::size_t image = static_cast<std::size_t>(g.sx) * g.sy;
  std::vector<float> out(image * g.projections);
  for (int n = 0; n < g.projections; ++n) simulate_projection(phantom, g, n, out.data() + n * image);
  return out;
}

}  // namespace tomo::fdk
