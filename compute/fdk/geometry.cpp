// C-arm geometry and projection matrices (see geometry.hpp for the conventions).
#include "compute/fdk/geometry.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/scene.hpp"

namespace tomo::fdk {

double CArmGeometry::step_rad() const {
  return projections > 1 ? arc_deg * std::numbers::pi / 180.0 / (projections - 1) : 0.0;
}
double CArmGeometry::angle_rad(int n) const {
  if (!angles_deg.empty()) return angles_deg.at(static_cast<std::size_t>(n)) * std::numbers::pi / 180.0;
  return start_deg * std::numbers::pi / 180.0 + n * step_rad();
}

double CArmGeometry::angle_weight_rad(int n) const {
  if (angles_deg.size() < 2) return step_rad();
  const int last = static_cast<int>(angles_deg.size()) - 1;
  const int lo = std::max(0, n - 1), hi = std::min(last, n + 1);
  return (angle_rad(hi) - angle_rad(lo)) / (hi - lo);
}

double CArmGeometry::fan_half_angle_rad() const {
  return std::atan(0.5 * sx * pixel_mm / source_det_mm);
}

Vec3d CArmGeometry::source(int n) const {
  const double b = angle_rad(n);
  return {source_iso_mm * std::cos(b), source_iso_mm * std::sin(b), 0.0};
}

Vec3d CArmGeometry::detector_point(int n, double u, double v) const {
  const double b = angle_rad(n);
  const double c = std::cos(b), s = std::sin(b);
  const double along = source_iso_mm - source_det_mm;  // detector centre = along·e_s
  const double du = (u - u0()) * pixel_mm, dv = (v - v0()) * pixel_mm;
  return {along * c - du * s, along * s + du * c, dv};
}

Mat34 CArmGeometry::matrix(int n) const {
  // For x: depth along the central ray w' = D_si − x·e_s; u = u0 + (D_sd/p)(x·e_u)/w',
  // v = v0 + (D_sd/p)·z/w'. Rows: r2 = [−e_s, D_si], r0 = (D_sd/p)[e_u, 0] + u0·r2,
  // r1 = (D_sd/p)[e_z, 0] + v0·r2; all divided by D_si so that w = w'/D_si.
  const double b = angle_rad(n);
  const double c = std::cos(b), s = std::sin(b);
  const double f = source_det_mm / pixel_mm;
  const double r2[4] = {-c, -s, 0.0, source_iso_mm};
  const double eu[4] = {-s, c, 0.0, 0.0};
  const double ez[4] = {0.0, 0.0, 1.0, 0.0};
  Mat34 m;
  for (int col = 0; col < 4; ++col) {
    m.at(0, col) = (f * eu[col] + u0() * r2[col]) / source_iso_mm;
    m.at(1, col) = (f * ez[col] + v0() * r2[col]) / source_iso_mm;
    m.at(2, col) = r2[col] / source_iso_mm;
  }
  return m;
}

std::vector<Mat34> CArmGeometry::matrices() const {
  std::vector<Mat34> out(projections);
  for (int n = 0; n < projections; ++n) out[n] = matrix(n);
  return out;
}

void CArmGeometry::validate(const std::string& where, bool short_scan) const {
  auto bad = [&](const std::string& what) { throw InputError(where + ": " + what); };
  if (projections < 2) bad(str_cat("geometry needs at least 2 projections, got ", projections));
  if (sx < 2 || sy < 1) bad(str_cat("detector must be at least 2x1 pixels, got ", sx, "x", sy));
  if (!(pixel_mm > 0) || !std::isfinite(pixel_mm)) bad(str_cat("pixel_mm must be > 0, got ", pixel_mm));
  if (!(source_iso_mm > 0) || !(source_det_mm > source_iso_mm))
    bad(str_cat("need 0 < source_iso_mm < source_det_mm, got ", source_iso_mm, " and ", source_det_mm));
  if (!(arc_deg > 0) || arc_deg > 360) bad(str_cat("arc_deg must be in (0, 360], got ", arc_deg));
  const double need = 180.0 + 2.0 * fan_half_angle_rad() * 180.0 / std::numbers::pi;
  if (short_scan && arc_deg < need)
    bad(str_cat("a short scan needs arc_deg >= 180 + 2·fan half-angle = ", need, " deg, got ", arc_deg));
}

CArmGeometry CArmGeometry::from_scene(const Scene& scene, const std::string& prefix, const CArmGeometry& d,
                                      bool short_scan) {
  CArmGeometry g = d;
  g.projections = scene.get_int_in_range(prefix + "projections", d.projections, 2, 100000);
  g.arc_deg = scene.get_in_range(prefix + "arc_deg", d.arc_deg, 1e-3, 360.0);
  g.start_deg = scene.get_in_range(prefix + "start_deg", d.start_deg, -360.0, 360.0);
  g.sx = scene.get_int_in_range(prefix + "detector_columns", d.sx, 2, 65536);
  g.sy = scene.get_int_in_range(prefix + "detector_rows", d.sy, 1, 65536);
  g.pixel_mm = scene.get_in_range(prefix + "pixel_mm", d.pixel_mm, 1e-6, 1e3);
  g.source_iso_mm = scene.get_in_range(prefix + "source_iso_mm", d.source_iso_mm, 1.0, 1e5);
  g.source_det_mm = scene.get_in_range(prefix + "source_det_mm", d.source_det_mm, 1.0, 1e5);
  // Offsets move the central ray's pixel; unset (0 by default) keeps the defaults' (the centre).
  const double half_u = 0.5 * g.sx * g.pixel_mm, half_v = 0.5 * g.sy * g.pixel_mm;
  const double off_u = scene.get_in_range(prefix + "detector_offset_u_mm", 0.0, -half_u, half_u);
  const double off_v = scene.get_in_range(prefix + "detector_offset_v_mm", 0.0, -half_v, half_v);
  if (off_u != 0.0) g.principal_u = 0.5 * (g.sx - 1) + off_u / g.pixel_mm;
  if (off_v != 0.0) g.principal_v = 0.5 * (g.sy - 1) + off_v / g.pixel_mm;
  g.validate(scene.where(prefix.substr(0, prefix.size() - 1)), short_scan);
  return g;
}

CArmGeometry CArmGeometry::from_scene(const Scene& scene, const std::string& prefix, bool short_scan) {
  return from_scene(scene, prefix, CArmGeometry{}, short_scan);
}

}  // namespace tomo::fdk
