// Fitting a circular orbit to projection matrices (see orbit.hpp). Decomposition of P = [M | p4]
// with the third row of M scaled to unit length: depth w = m3·x + p34, principal point
// (m1·m3, m2·m3), focal lengths |m1 − u0·m3|, |m2 − v0·m3|, source −M⁻¹p4 (Hartley & Zisserman §6.2).
#include "compute/fdk/orbit.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::fdk {
namespace {

using V3 = std::array<double, 3>;
double dot(const V3& a, const V3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
double norm(const V3& a) { return std::sqrt(dot(a, a)); }
V3 sub(const V3& a, const V3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
V3 scale(const V3& a, double s) { return {a[0] * s, a[1] * s, a[2] * s}; }

// x with M x = b (Cramer's rule; the caller has checked M is far from singular).
V3 solve(const std::array<V3, 3>& m, const V3& b) {
  const auto det3 = [](const V3& r0, const V3& r1, const V3& r2) {
    return r0[0] * (r1[1] * r2[2] - r1[2] * r2[1]) - r0[1] * (r1[0] * r2[2] - r1[2] * r2[0]) +
           r0[2] * (r1[0] * r2[1] - r1[1] * r2[0]);
  };
  const double d = det3(m[0], m[1], m[2]);
  V3 x{};
  for (int c = 0; c < 3; ++c) {
    std::array<V3, 3> t = m;
    for (int r = 0; r < 3; ++r) t[r][c] = b[r];
    x[c] = det3(t[0], t[1], t[2]) / d;
  }
  return x;
}

double wrap(double a) { return std::remainder(a, 2.0 * std::numbers::pi); }

struct View {
  Mat34 normalised;
  V3 source;
  double depth = 0, u0 = 0, v0 = 0, focal_u = 0, focal_v = 0;
};

View decompose(const Mat34& P, int n, const std::string& where) {
  std::array<V3, 3> m;
  V3 p4;
  for (int r = 0; r < 3; ++r) {
    m[r] = {P.at(r, 0), P.at(r, 1), P.at(r, 2)};
    p4[r] = P.at(r, 3);
  }
  const double n3 = norm(m[2]);
  const double det = dot(m[0], {m[1][1] * m[2][2] - m[1][2] * m[2][1], m[1][2] * m[2][0] - m[1][0] * m[2][2],
                                m[1][0] * m[2][1] - m[1][1] * m[2][0]});
  if (!(std::abs(det) > 1e-9 * norm(m[0]) * norm(m[1]) * n3))
    throw InputError(str_cat(where, ": matrix ", n, " is degenerate (its left 3x3 part is singular: no source)"));
  double s = 1.0 / n3;
  if (p4[2] * s < 0) s = -s;  // w > 0 in front of the source
  View v;
  v.depth = p4[2] * s;  // depth of the world origin along the central ray (mm)
  if (!(v.depth > 0))
    throw InputError(str_cat(where, ": matrix ", n, " puts the world origin (the volume centre) in its source plane"));
  const V3 r0 = scale(m[0], s), r1 = scale(m[1], s), r2 = scale(m[2], s);
  v.u0 = dot(r0, r2);
  v.v0 = dot(r1, r2);
  v.focal_u = norm(sub(r0, scale(r2, v.u0)));
  v.focal_v = norm(sub(r1, scale(r2, v.v0)));
  v.source = scale(solve(m, p4), -1.0);
  for (double& a : v.normalised.a) a = 0;
  for (int k = 0; k < 12; ++k) v.normalised.a[k] = P.a[k] * s / v.depth;  // w = 1 at the origin
  return v;
}

// Fan angle of column u (row v0) in the orbit plane, relative to the ray through the origin.
double fan_angle(const View& v, const Mat34& P, double u) {
  std::array<V3, 3> m;
  for (int r = 0; r < 3; ++r) m[r] = {P.at(r, 0), P.at(r, 1), P.at(r, 2)};
  const V3 d = solve(m, {u, v.v0, 1.0});  // direction with w growing along it (P normalised)
  return wrap(std::atan2(d[1], d[0]) - std::atan2(-v.source[1], -v.source[0]));
}

double spread(const std::vector<View>& views, double View::*f) {
  double lo = 1e300, hi = -1e300, sum = 0;
  for (const View& v : views) lo = std::min(lo, v.*f), hi = std::max(hi, v.*f), sum += v.*f;
  return (hi - lo) / (sum / views.size());
}

double mean(const std::vector<View>& views, double View::*f) {
  double sum = 0;
  for (const View& v : views) sum += v.*f;
  return sum / views.size();
}

}  // namespace

FittedOrbit fit_orbit(const std::vector<Mat34>& matrices, int sx, int sy, bool parker, const std::string& where) {
  const int N = static_cast<int>(matrices.size());
  if (N < 2) throw InputError(str_cat(where, ": FDK needs at least 2 projections, got ", N));
  std::vector<View> views;
  views.reserve(N);
  for (int n = 0; n < N; ++n) views.push_back(decompose(matrices[n], n, where));

  // Source angles about z, unwrapped in file order; they must run one way.
  std::vector<double> beta(N);
  beta[0] = std::atan2(views[0].source[1], views[0].source[0]);
  for (int n = 1; n < N; ++n)
    beta[n] = beta[n - 1] + wrap(std::atan2(views[n].source[1], views[n].source[0]) - beta[n - 1]);
  const double turn = beta[N - 1] - beta[0];
  if (std::abs(turn) < 1e-9) throw InputError(str_cat(where, ": every projection sees the volume from one direction"));
  const double sense = turn > 0 ? 1.0 : -1.0;
  FittedOrbit f;
  CArmGeometry& g = f.geometry;
  g.projections = N;
  g.sx = sx;
  g.sy = sy;
  g.angles_deg.resize(N);
  for (int n = 0; n < N; ++n) {
    g.angles_deg[n] = sense * (beta[n] - beta[0]) * 180.0 / std::numbers::pi;
    if (n > 0 && !(g.angles_deg[n] > g.angles_deg[n - 1]))
      throw InputError(str_cat(where, ": projection ", n, " is not in angular order (", g.angles_deg[n - 1], " then ",
                               g.angles_deg[n], " deg from the first; FDK needs the views sorted by angle)"));
  }
  g.arc_deg = g.angles_deg.back();
  g.start_deg = 0;
  g.source_iso_mm = mean(views, &View::depth);
  g.pixel_mm = 1.0;
  g.source_det_mm = mean(views, &View::focal_u);
  g.principal_u = mean(views, &View::u0);
  g.principal_v = mean(views, &View::v0);
  const double dgamma = fan_angle(views[0], views[0].normalised, views[0].u0 + 1.0) -
                        fan_angle(views[0], views[0].normalised, views[0].u0 - 1.0);
  g.u_along_rotation = sense * dgamma < 0;

  f.source_iso_spread = spread(views, &View::depth);
  f.focal_spread = spread(views, &View::focal_u);
  double zlo = 1e300, zhi = -1e300;
  for (const View& v : views) zlo = std::min(zlo, v.source[2]), zhi = std::max(zhi, v.source[2]);
  f.source_z_spread_mm = zhi - zlo;
  for (const View& v : views) f.matrices.push_back(v.normalised);
  const double aspect = std::abs(mean(views, &View::focal_v) / g.source_det_mm - 1.0);
  if (f.source_iso_spread > 0.02 || f.focal_spread > 0.02 || f.source_z_spread_mm > 0.02 * g.source_iso_mm ||
      aspect > 0.02)
    log_warn(where, ": the views depart from one circular orbit about z with square pixels (source depth spread ",
             100 * f.source_iso_spread, " %, focal length spread ", 100 * f.focal_spread, " %, source z range ",
             f.source_z_spread_mm, " mm, pixel aspect ", 1 + aspect, "); FDK's weights use the mean orbit");

  const double edge = std::max(g.principal_u, sx - 1 - g.principal_u) + 0.5;
  const double need = 180.0 + 2.0 * std::atan(edge / g.source_det_mm) * 180.0 / std::numbers::pi;
  if (parker && g.arc_deg < need)
    throw InputError(str_cat(where, ": the views cover ", g.arc_deg, " deg; a short scan needs >= 180 + 2·fan angle = ",
                             need, " deg (or set fdk.filter.parker = false for a full scan)"));
  log_info(where, ": ", N, " views over ", g.arc_deg, " deg, source–origin ", g.source_iso_mm, " mm, focal length ",
           g.source_det_mm, " px, central ray at (", g.principal_u, ", ", g.principal_v, ")");
  return f;
}

}  // namespace tomo::fdk
