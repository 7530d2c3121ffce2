// Cone-beam views → projection matrices (see cone_view.hpp).
#include "compute/fdk/cone_view.hpp"

#include <cmath>

#include "compute/core/error.hpp"

namespace tomo::fdk {
namespace {

Vec3d sub(const Vec3d& a, const Vec3d& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
double norm(const Vec3d& a) { return std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

}  // namespace

Vec3d operator*(const Mat3d& m, const Vec3d& x) {
  Vec3d y{};
  for (int r = 0; r < 3; ++r) y[r] = m[r][0] * x[0] + m[r][1] * x[1] + m[r][2] * x[2];
  return y;
}

Mat3d detector_rotation(double roll, double pitch, double yaw) {
  const double cr = std::cos(roll), sr = std::sin(roll), cp = std::cos(pitch), sp = std::sin(pitch);
  const double cy = std::cos(yaw), sy = std::sin(yaw);
  return {{{cr * cp, cr * sp * sy - sr * cy, cr * sp * cy + sr * sy},
           {sr * cp, sr * sp * sy + cr * cy, sr * sp * cy - cr * sy},
           {-sp, cp * sy, cp * cy}}};
}

Mat34 view_matrix(const ConeView& view, int cols, int rows, const std::string& where) {
  for (const Vec3d* a : {&view.source, &view.detector_centre, &view.u, &view.v})
    for (double x : *a)
      if (!std::isfinite(x)) throw InputError(where + ": a view vector is not finite");
  // A point x on the ray through detector offset (a, b) (pixels from the centre) satisfies
  // x − S = t·M·(a, b, 1) with M = [u v (D − S)]: so (a·t, b·t, t) = M⁻¹(x − S).
  const Vec3d c = sub(view.detector_centre, view.source);
  const double m[3][3] = {{view.u[0], view.v[0], c[0]}, {view.u[1], view.v[1], c[1]}, {view.u[2], view.v[2], c[2]}};
  const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                     m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                     m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  const double scale = norm(view.u) * norm(view.v) * norm(c);
  if (!(std::abs(det) > 1e-12 * scale) || !(scale > 0))
    throw InputError(where + ": the detector's u, v and source-to-centre vectors are not independent");
  double inv[3][3];
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 3; ++k) {
      const int r1 = (k + 1) % 3, r2 = (k + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;
      inv[r][k] = (m[r1][c1] * m[r2][c2] - m[r1][c2] * m[r2][c1]) / det;  // adjugate (cofactor transposed)
    }
  // Rows 0 and 1 in pixels: u = a + (cols−1)/2, v = b + (rows−1)/2, i.e. row0 + cu·row2.
  const double cu = 0.5 * (cols - 1), cv = 0.5 * (rows - 1);
  double p[3][4];
  for (int r = 0; r < 3; ++r) {
    for (int k = 0; k < 3; ++k) p[r][k] = inv[r][k];
    p[r][3] = -(inv[r][0] * view.source[0] + inv[r][1] * view.source[1] + inv[r][2] * view.source[2]);
  }
  const double w0 = p[2][3];  // depth of the world origin, 1 at the detector plane
  if (!(w0 > 0)) throw InputError(where + ": the world origin is not in front of the source");
  Mat34 out;
  for (int k = 0; k < 4; ++k) {
    out.at(0, k) = (p[0][k] + cu * p[2][k]) / w0;
    out.at(1, k) = (p[1][k] + cv * p[2][k]) / w0;
    out.at(2, k) = p[2][k] / w0;
  }
  return out;
}

std::vector<Mat34> view_matrices(const std::vector<ConeView>& views, int cols, int rows, const std::string& where) {
  std::vector<Mat34> out;
  out.reserve(views.size());
  for (std::size_t n = 0; n < views.size(); ++n)
    out.push_back(view_matrix(views[n], cols, rows, where + " (view " + std::to_string(n) + ")"));
  return out;
}

}  // namespace tomo::fdk
