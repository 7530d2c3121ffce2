// Strip geometry: grid construction, validation, sensitivity (eq. 4), direct reconstruction (eq. 2).
#include "compute/strip/geometry.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::strip {

StripGeometry StripGeometry::covering(double R, double L, double pixel) {
  StripGeometry g;
  g.R = R;
  g.L = L;
  g.pixel_y = g.pixel_z = pixel;
  g.n_y = std::max(1, static_cast<int>(std::ceil(2.0 * R / pixel - 1e-9)));
  g.n_z = std::max(1, static_cast<int>(std::ceil(L / pixel - 1e-9)));
  return g;
}

Grid3 StripGeometry::grid3() const {
  Grid3 g;
  g.dims = {n_z, n_y, 1};
  g.voxel_mm = {pixel_z, pixel_y, 1.0};
  g.origin_mm = {z_centre(0), y_centre(0), 0.0};
  return g;
}

void StripGeometry::validate(const char* where) const {
  auto bad = [&](const char* what, double v) {
    throw InputError(str_cat(where, ": ", what, " must be > 0 and finite, got ", v));
  };
  if (!(R > 0) || !std::isfinite(R)) bad("R", R);
  if (!(L > 0) || !std::isfinite(L)) bad("L", L);
  if (!(pixel_y > 0) || !std::isfinite(pixel_y)) bad("pixel_y", pixel_y);
  if (!(pixel_z > 0) || !std::isfinite(pixel_z)) bad("pixel_z", pixel_z);
  if (n_y < 1 || n_z < 1 || n_y > 16384 || n_z > 16384)
    throw InputError(str_cat(where, ": grid ", n_y, "x", n_z, " must be between 1 and 16384 per side"));
  if (0.5 * (n_y - 1) * pixel_y >= R)
    throw InputError(str_cat(where, ": the pixel grid (", n_y, " x ", pixel_y,
                             " mm) reaches the strips at y = ±", R, " mm"));
}

double sensitivity(double R, double L, double y, double z) {
  // [Bialas2015] eq. (4): tan θ of a line through (y, z) hitting z_u = z + (R−y)tanθ and
  // z_d = z − (R+y)tanθ must keep both within [−L/2, L/2].
  if (!(std::abs(y) < R) || !(std::abs(z) <= 0.5 * L)) return 0.0;
  const double hi = std::min((0.5 * L - z) / (R - y), (0.5 * L + z) / (R + y));
  const double lo = std::max(-(0.5 * L + z) / (R - y), (-0.5 * L + z) / (R + y));
  const double pi = 3.14159265358979323846;
  return std::max(0.0, (std::atan(hi) - std::atan(lo)) / pi);
}

std::vector<double> sensitivity_image(const StripGeometry& g) {
  std::vector<double> s(g.pixel_count());
  for (int j = 0; j < g.n_y; ++j)
    for (int k = 0; k < g.n_z; ++k) s[g.index(j, k)] = sensitivity(g.R, g.L, g.y_centre(j), g.z_centre(k));
  return s;
}

std::vector<std::uint8_t> outside_field_of_view(const StripGeometry& g) {
  std::vector<std::uint8_t> out(g.pixel_count(), 0);
  for (int j = 0; j < g.n_y; ++j)
    for (int k = 0; k < g.n_z; ++k)
      out[g.index(j, k)] = std::fabs(g.y_centre(j)) > g.R || std::fabs(g.z_centre(k)) > 0.5 * g.L ? 1 : 0;
  return out;
}

std::vector<double> direct_reconstruction(const StripGeometry& g, const std::vector<Event>& events) {
  std::vector<double> h(g.pixel_count(), 0.0);
  const auto kp = make_kernel_params<double>(g.R, 1.0, 1.0);
  const double y0 = g.y_centre(0) - 0.5 * g.pixel_y, z0 = g.z_centre(0) - 0.5 * g.pixel_z;
  const auto n = static_cast<std::int64_t>(events.size());
  // Each thread histograms a share of the events; the counts are whole numbers, so the sum of
  // the threads' histograms is the same in any order.
#pragma omp parallel
  {
    std::vector<double> mine(h.size(), 0.0);
#pragma omp for schedule(static) nowait
    for (std::int64_t i = 0; i < n; ++i) {
      const Event& e = events[std::size_t(i)];
      const auto f = make_frame<double>(e.z_u, e.z_d, e.dl, kp);  // eq. (2)
      const double fj = std::floor((f.y - y0) / g.pixel_y), fk = std::floor((f.z - z0) / g.pixel_z);
      if (fj >= 0 && fj < g.n_y && fk >= 0 && fk < g.n_z) mine[g.index(int(fj), int(fk))] += 1.0;
    }
#pragma omp critical
    for (std::size_t p = 0; p < h.size(); ++p) h[p] += mine[p];
  }
  return h;
}

}  // namespace tomo::strip
