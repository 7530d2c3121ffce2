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

double CArmGeometry::short_scan_arc_deg() const {
  return 180.0 + 2.0 * fan_half_angle_rad() * 180.0 / std::numbers::pi;
}

Vec3d CArmGeometry::source(int n) const {
  const double b = angle_rad(n);
  return {source_iso_mm * std::cos(b), source_iso_mm * std::sin(b), 0.0};
}

ConeView CArmGeometry::view(int n) const {
  const double b = angle_rad(n);
  const Vec3d es{std::cos(b), std::sin(b), 0.0}, eu{-std::sin(b), std::cos(b), 0.0};
  // In the view's frame (towards the source, along the columns, along the rows): the centre is
  // offset so that the central ray meets pixel (u0, v0) before the tilt, which turns the
  // detector about its centre.
  const double cu = 0.5 * (sx - 1), cv = 0.5 * (sy - 1);
  const Vec3d local_centre{source_iso_mm - source_det_mm, (cu - u0()) * pixel_mm, (cv - v0()) * pixel_mm};
  const double deg = std::numbers::pi / 180.0;
  const Mat3d r = detector_rotation(roll_deg * deg, pitch_deg * deg, yaw_deg * deg);
  const Vec3d lu = r * Vec3d{0.0, pixel_mm, 0.0}, lv = r * Vec3d{0.0, 0.0, pixel_mm};
  const auto world = [&](const Vec3d& l) {
    return Vec3d{l[0] * es[0] + l[1] * eu[0], l[0] * es[1] + l[1] * eu[1], l[2]};
  };
  return {source(n), world(local_centre), world(lu), world(lv)};
}

Vec3d CArmGeometry::detector_point(int n, double u, double v) const {
  if (tilted()) {
    const ConeView w = view(n);
    const double a = u - 0.5 * (sx - 1), c = v - 0.5 * (sy - 1);
    return {w.detector_centre[0] + a * w.u[0] + c * w.v[0], w.detector_centre[1] + a * w.u[1] + c * w.v[1],
            w.detector_centre[2] + a * w.u[2] + c * w.v[2]};
  }
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
  if (tilted()) return view_matrix(view(n), sx, sy, "tilted detector");
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
  for (const double t : {roll_deg, pitch_deg, yaw_deg})
    if (!(std::abs(t) < 45.0)) bad(str_cat("detector tilts must be within ±45 deg, got ", t));
  for (std::size_t n = 1; n < angles_deg.size(); ++n)
    if (!(angles_deg[n] > angles_deg[n - 1]))
      bad(str_cat("angles_deg must increase, but view ", n, " is at ", angles_deg[n], " after ", angles_deg[n - 1]));
  const double need = short_scan_arc_deg();
  if (short_scan && arc_deg < need)
    bad(str_cat("a short scan needs arc_deg >= 180 + 2·fan half-angle = ", need, " deg, got ", arc_deg));
}

CArmGeometry CArmGeometry::from_scene(const Scene& scene, const std::string& prefix, const CArmGeometry& d,
                                      bool short_scan) {
  CArmGeometry g = d;
  // `get` records fallbacks in the resolved scene: ask which keys the user gave first.
  const bool listed = scene.has(prefix + "angles_deg");
  std::string counted;
  for (const char* k : {"projections", "arc_deg", "start_deg"})
    if (scene.has(prefix + k)) counted = prefix + k;
  g.projections = scene.get_int_in_range(prefix + "projections", d.projections, 2, 100000);
  g.arc_deg = scene.get_in_range(prefix + "arc_deg", d.arc_deg, 1e-3, 360.0);
  g.start_deg = scene.get_in_range(prefix + "start_deg", d.start_deg, -360.0, 360.0);
  if (listed) {  // every view's angle: the count, start and arc follow
    const std::string key = prefix + "angles_deg";
    g.angles_deg = scene.get<std::vector<double>>(key, {});
    for (const double a : g.angles_deg)
      if (!std::isfinite(a) || std::abs(a) > 1e4) throw InputError(str_cat(scene.where(key), ": angle ", a, " is not finite or beyond ±10000 deg"));
    if (g.angles_deg.size() < 2 || g.angles_deg.size() > 100000)
      throw InputError(str_cat(scene.where(key), ": needs 2..100000 angles, got ", g.angles_deg.size()));
    if (!counted.empty()) throw InputError(scene.where(key) + " and " + counted + " both set the views; give one");
    g.projections = static_cast<int>(g.angles_deg.size());
    g.start_deg = g.angles_deg.front();
    g.arc_deg = g.angles_deg.back() - g.angles_deg.front();
  }
  g.roll_deg = scene.get_in_range(prefix + "detector_roll_deg", d.roll_deg, -45.0, 45.0);
  g.pitch_deg = scene.get_in_range(prefix + "detector_pitch_deg", d.pitch_deg, -45.0, 45.0);
  g.yaw_deg = scene.get_in_range(prefix + "detector_yaw_deg", d.yaw_deg, -45.0, 45.0);
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
