// Correspondence-image camera of [Toth2010] §II.A in matrix form, generalised to any
// module orientation (the paper's rotation α = atan2(n_y, −n_z) about x is the special
// case axis_a = x; here the camera basis is the primary's own (axis_a, axis_t, ±n)).
#include "compute/glpet/camera.hpp"

#include <algorithm>
#include <cmath>

namespace tomo::glpet {

namespace {
Mat4 identity() {
  Mat4 m{};
  m[0] = m[5] = m[10] = m[15] = 1;
  return m;
}
double& at(Mat4& m, int row, int col) { return m[col * 4 + row]; }
}  // namespace

Mat4 multiply(const Mat4& a, const Mat4& b) {
  Mat4 c{};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      double s = 0;
      for (int k = 0; k < 4; ++k) s += a[k * 4 + i] * b[j * 4 + k];
      c[j * 4 + i] = s;
    }
  return c;
}

std::array<double, 4> transform(const Mat4& m, const Vec3& p) {
  std::array<double, 4> out{};
  for (int i = 0; i < 4; ++i) out[i] = m[i] * p[0] + m[4 + i] * p[1] + m[8 + i] * p[2] + m[12 + i];
  return out;
}

std::array<float, 16> to_float(const Mat4& m) {
  std::array<float, 16> f{};
  for (int i = 0; i < 16; ++i) f[i] = float(m[i]);
  return f;
}

RasterCamera raster_camera(const ModulePair& pair, const Vec3& v, int R) {
  const Correspondence c(pair, v, R);
  RasterCamera cam;
  cam.primary = c.primary;
  cam.secondary = 1 - c.primary;
  cam.width = c.width;
  cam.height = c.height;
  cam.pixel_origin = c.origin;
  cam.pixel_du = c.du;
  cam.pixel_dv = c.dv;
  cam.pixel_area = c.pixel_area;
  cam.v = v;
  const Module& m1 = c.primary_module();
  const Module& m2 = c.secondary_module();
  cam.primary_normal = m1.normal;

  // Camera basis: x = axis_a, y = axis_t, z = −(unit vector from v towards the primary plane).
  const double side = dot(sub(m1.centre, v), m1.normal) >= 0 ? 1.0 : -1.0;
  const Vec3 ez = scale(m1.normal, -side);
  // view = B · (−I) · T(−v): camera coordinates of a (mirrored) world point p are
  // B·(v − p); rows of B are the basis vectors.
  Mat4 view = identity();
  const Vec3 rows[3] = {m1.axis_a, m1.axis_t, ez};
  for (int r = 0; r < 3; ++r) {
    for (int col = 0; col < 3; ++col) at(view, r, col) = -rows[r][col];
    at(view, r, 3) = dot(rows[r], v);
  }
  cam.view = view;

  // Window centre in camera space WITHOUT mirroring (the window is the primary itself).
  const Vec3 rel = sub(m1.centre, v);
  const double cx = dot(rel, m1.axis_a), cy = dot(rel, m1.axis_t), cz = dot(rel, ez);  // cz < 0
  const double w = m1.width(), h = m1.height();
  // Depth range: from the mirrored secondary corners (all in front when the secondary
  // lies behind v); near and far bracket them with margin, clipped to sane values.
  double zmin = 1e300, zmax = 0;
  for (int i = 0; i < 4; ++i) {
    const double a = (i == 1 || i == 2) ? m2.width() : 0.0, t = (i >= 2) ? m2.height() : 0.0;
    cam.secondary_corners[i] = m2.point(a, t);
    cam.secondary_colours[i] = {(i == 1 || i == 2) ? m2.n_a + 1.0 : 1.0, (i >= 2) ? m2.n_t + 1.0 : 1.0};
    const double zc = -transform(view, cam.secondary_corners[i])[2];  // distance in front
    zmin = std::min(zmin, zc);
    zmax = std::max(zmax, zc);
  }
  const double f = std::max(1e-3, 0.5 * std::max(zmin, 1e-3)), b = std::max(2.0 * zmax, f * 2 + 1.0);
  cam.near_mm = f;
  cam.far_mm = b;
  // [Toth2010] §II.A: shear [x − (c'x/c'z)z, y − (c'y/c'z)z] then the perspective matrix.
  Mat4 shear = identity();
  at(shear, 0, 2) = -cx / cz;
  at(shear, 1, 2) = -cy / cz;
  Mat4 persp{};
  at(persp, 0, 0) = -2 * cz / w;
  at(persp, 1, 1) = -2 * cz / h;
  at(persp, 2, 2) = -(f + b) / (b - f);
  at(persp, 2, 3) = -2 * f * b / (b - f);
  at(persp, 3, 2) = -1;
  cam.projection = multiply(persp, shear);
  cam.view_projection = multiply(cam.projection, cam.view);
  return cam;
}

}  // namespace tomo::glpet
