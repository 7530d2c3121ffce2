// Appendix A phantom of [Bialas2015]: point values (topmost row wins), bounds, rasterisation.
#include "compute/strip/phantom.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/scene.hpp"

namespace tomo::strip {

namespace {
constexpr double kDeg = 3.14159265358979323846 / 180.0;
}

bool EllipseRow::contains(double y_mm, double z_mm) const {
  const double dx = z_mm - x, dy = y_mm - y;
  const double c = std::cos(phi * kDeg), s = std::sin(phi * kDeg);
  const double u = c * dx + s * dy, v = -s * dx + c * dy;  // rotate by −φ into the ellipse frame
  return (u / a) * (u / a) + (v / b) * (v / b) <= 1.0;
}

StripPhantom StripPhantom::appendix_a() {
  // [Bialas2015] Appendix A table, top row first.
  return {{{0, 0, 30, 60, 0, 0.3},
           {50, -62, 10, 33, -40, 0.3},
           {-50, -63, 20, 33, 45, 0.5},
           {60, 65, 13, 14, 0, 0.5},
           {35, 55, 12, 12, 0, 0.7},
           {0, 0, 120, 110, 0, 0.1}}};
}

StripPhantom StripPhantom::from_scene(const Scene& scene, const std::string& key) {
  const std::size_t n = scene.array_size(key);
  if (n == 0) return appendix_a();
  StripPhantom p;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string e = scene.element_key(key, i);
    EllipseRow r{scene.require<double>(e + ".x"), scene.require<double>(e + ".y"),
                 scene.require<double>(e + ".a"), scene.require<double>(e + ".b"),
                 scene.get<double>(e + ".phi", 0.0), scene.require<double>(e + ".rho")};
    if (!(r.a > 0) || !(r.b > 0))
      throw InputError(str_cat(scene.where(e + ".a"), ": half-axes must be > 0, got a = ", r.a, ", b = ", r.b));
    if (!(r.rho >= 0)) throw InputError(str_cat(scene.where(e + ".rho"), " must be >= 0, got ", r.rho));
    p.rows.push_back(r);
  }
  return p;
}

double StripPhantom::value_at(double y_mm, double z_mm) const {
  for (const EllipseRow& r : rows)
    if (r.contains(y_mm, z_mm)) return r.rho;  // topmost row wins
  return 0.0;
}

double StripPhantom::max_value() const {
  double m = 0.0;
  for (const EllipseRow& r : rows) m = std::max(m, r.rho);
  return m;
}

std::array<double, 4> StripPhantom::bounds() const {
  std::array<double, 4> b{1e300, -1e300, 1e300, -1e300};
  for (const EllipseRow& r : rows) {
    // Axis-aligned extent of a rotated ellipse.
    const double c = std::cos(r.phi * kDeg), s = std::sin(r.phi * kDeg);
    const double ex = std::sqrt(r.a * r.a * c * c + r.b * r.b * s * s);  // along x (z)
    const double ey = std::sqrt(r.a * r.a * s * s + r.b * r.b * c * c);  // along y
    b[0] = std::min(b[0], r.y - ey);
    b[1] = std::max(b[1], r.y + ey);
    b[2] = std::min(b[2], r.x - ex);
    b[3] = std::max(b[3], r.x + ex);
  }
  if (rows.empty()) b = {0, 0, 0, 0};
  return b;
}

std::vector<double> StripPhantom::rasterize(const StripGeometry& g, int supersampling) const {
  const int s = std::max(1, supersampling);
  std::vector<double> img(g.pixel_count(), 0.0);
  for (int j = 0; j < g.n_y; ++j)
    for (int k = 0; k < g.n_z; ++k) {
      double sum = 0.0;
      for (int a = 0; a < s; ++a)
        for (int b = 0; b < s; ++b)
          sum += value_at(g.y_centre(j) + ((a + 0.5) / s - 0.5) * g.pixel_y,
                          g.z_centre(k) + ((b + 0.5) / s - 0.5) * g.pixel_z);
      img[g.index(j, k)] = sum / (s * s);
    }
  return img;
}

}  // namespace tomo::strip
