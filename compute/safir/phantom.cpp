// Derenzo layout, rasterisation and source weights of the safir phantom.
#include "compute/safir/phantom.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/scene.hpp"

namespace tomo::safir {

std::vector<Sphere> Phantom::derenzo(double pattern_radius, double z0, double activity) {
  std::vector<Sphere> out;
  const double kPi = std::numbers::pi;
  for (std::size_t g = 0; g < kDerenzoDiameters.size(); ++g) {
    const double d = kDerenzoDiameters[g], spacing = 2.0 * d;
    const double phi = kPi / 3.0 * static_cast<double>(g) + kPi / 6.0;
    const double ex = std::cos(phi), ey = std::sin(phi), fx = -ey, fy = ex;
    // Rows of the triangle, apex towards the centre; the apex leaves room between the groups.
    const double start = 2.0 + d;
    for (int row = 0;; ++row) {
      const double rho = start + row * spacing * std::sqrt(3.0) / 2.0;
      if (rho + 0.5 * d > pattern_radius) break;
      for (int j = 0; j <= row; ++j) {
        const double off = (j - 0.5 * row) * spacing;
        out.push_back({{rho * ex + off * fx, rho * ey + off * fy, z0}, 0.5 * d, activity});
      }
    }
  }
  return out;
}

Phantom Phantom::from_scene(const Scene& s) {
  Phantom p;
  p.cylinder_radius_mm = s.get_in_range("safir.phantom.cylinder_radius_mm", 25.0, 0.1, 1e4);
  p.cylinder_half_length_mm = 0.5 * s.get_in_range("safir.phantom.cylinder_length_mm", 150.0, 0.1, 1e4);
  p.background = s.get_in_range("safir.phantom.background", 0.0, 0.0, 1e6);
  p.mu_per_mm = s.get_in_range("safir.phantom.mu_per_mm", 0.0096, 0.0, 10.0);
  if (s.get<bool>("safir.phantom.derenzo", true)) {
    const double radius = s.get_in_range("safir.phantom.derenzo_radius_mm", 22.0, 3.0, 1e4);
    p.spheres = derenzo(radius, s.get_in_range("safir.phantom.derenzo_z_mm", 0.0, -1e4, 1e4),
                        s.get_in_range("safir.phantom.derenzo_activity", 1.0, 0.0, 1e6));
  }
  // The hot spot (§5.2: 5–10 mm³ with a raised activity in a non-uniform background).
  // Read even when off, so the scene's keys are checked (and not reported unused).
  const double hot = s.get_in_range("safir.phantom.hot_spot_activity", 0.0, 0.0, 1e6);
  const auto c = s.get<std::array<double, 3>>("safir.phantom.hot_spot_mm", {8.0, -8.0, 8.0});
  const double hot_r = s.get_in_range("safir.phantom.hot_spot_radius_mm", 1.2, 0.05, 1e3);
  if (hot > 0) p.spheres.push_back({{c[0], c[1], c[2]}, hot_r, hot});
  for (const Sphere& sp : p.spheres) {
    const double rxy = std::hypot(sp.centre[0], sp.centre[1]);
    if (rxy + sp.radius > p.cylinder_radius_mm || std::abs(sp.centre[2]) + sp.radius > p.cylinder_half_length_mm)
      throw InputError(str_cat(s.where("safir.phantom"), ": a sphere at (", sp.centre[0], ", ", sp.centre[1], ", ",
                               sp.centre[2], ") mm of radius ", sp.radius, " mm sticks out of the phantom cylinder"));
  }
  double total = 0;
  for (double w : p.source_weights()) total += w;
  if (!(total > 0)) throw InputError(s.where("safir.phantom") + ": the phantom has no activity");
  return p;
}

double Phantom::concentration(const std::array<double, 3>& p) const {
  if (std::hypot(p[0], p[1]) > cylinder_radius_mm || std::abs(p[2]) > cylinder_half_length_mm) return 0.0;
  double c = background;
  for (const Sphere& s : spheres) {
    const double dx = p[0] - s.centre[0], dy = p[1] - s.centre[1], dz = p[2] - s.centre[2];
    if (dx * dx + dy * dy + dz * dz <= s.radius * s.radius) c += s.activity;
  }
  return c;
}

// Sub-sampled: the background over the cylinder at every voxel, each sphere only over its box.
VolumeD Phantom::rasterize(const Grid3& g, int sub) const {
  VolumeD v(g);
  const double inv = 1.0 / (sub * sub * sub);
  auto fraction = [&](int i, int j, int k, auto&& inside) {
    const auto c = g.centre(i, j, k);
    int hits = 0;
    for (int a = 0; a < sub; ++a)
      for (int b = 0; b < sub; ++b)
        for (int e = 0; e < sub; ++e)
          hits += inside(c[0] + ((a + 0.5) / sub - 0.5) * g.voxel_mm[0], c[1] + ((b + 0.5) / sub - 0.5) * g.voxel_mm[1],
                         c[2] + ((e + 0.5) / sub - 0.5) * g.voxel_mm[2]);
    return hits * inv;
  };
  if (background > 0) {
#pragma omp parallel for schedule(static)
    for (int k = 0; k < g.dims[2]; ++k)
      for (int j = 0; j < g.dims[1]; ++j)
        for (int i = 0; i < g.dims[0]; ++i)
          v.at(i, j, k) = background * fraction(i, j, k, [&](double x, double y, double z) {
            return std::hypot(x, y) <= cylinder_radius_mm && std::abs(z) <= cylinder_half_length_mm;
          });
  }
  for (const Sphere& s : spheres) {
    int lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::max(0, static_cast<int>(std::floor((s.centre[a] - s.radius - g.origin_mm[a]) / g.voxel_mm[a])));
      hi[a] = std::min(g.dims[a] - 1, static_cast<int>(std::ceil((s.centre[a] + s.radius - g.origin_mm[a]) / g.voxel_mm[a])));
    }
    for (int k = lo[2]; k <= hi[2]; ++k)
      for (int j = lo[1]; j <= hi[1]; ++j)
        for (int i = lo[0]; i <= hi[0]; ++i)
          v.at(i, j, k) += s.activity * fraction(i, j, k, [&](double x, double y, double z) {
            const double dx = x - s.centre[0], dy = y - s.centre[1], dz = z - s.centre[2];
            return dx * dx + dy * dy + dz * dz <= s.radius * s.radius;
          });
  }
  return v;
}

std::vector<double> Phantom::source_weights() const {
  std::vector<double> w;
  const double kPi = std::numbers::pi;
  w.push_back(background * kPi * cylinder_radius_mm * cylinder_radius_mm * 2.0 * cylinder_half_length_mm);
  for (const Sphere& s : spheres) w.push_back(s.activity * 4.0 / 3.0 * kPi * s.radius * s.radius * s.radius);
  return w;
}

}  // namespace tomo::safir
