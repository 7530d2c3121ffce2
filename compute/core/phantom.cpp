// Analytic phantoms (ellipsoids, finite cylinders) with additive values: point values,
// exact chord lengths and line integrals, supersampled voxelisation, scene loading.
#include "compute/core/phantom.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "compute/core/error.hpp"
#include "compute/core/scene.hpp"

namespace tomo {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Vec3 sub(const Vec3& a, const Vec3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }

// Coordinates of a world vector in the shape's local axes, divided by the semi-axes.
Vec3 to_unit(const Shape& s, const Vec3& v) {
  return {dot(s.axes[0], v) / s.semi_axes[0], dot(s.axes[1], v) / s.semi_axes[1], dot(s.axes[2], v) / s.semi_axes[2]};
}

struct Interval {
  double lo = -kInf, hi = kInf;
  bool empty() const { return !(lo < hi); }
};

// {t : a t² + b t + c <= 0} for a >= 0; empty when the discriminant is not positive.
Interval quadratic_interval(double a, double b, double c) {
  if (a <= 0) return c <= 0 ? Interval{} : Interval{0, 0};  // parallel: all or nothing
  const double disc = b * b - 4 * a * c;
  if (disc <= 0) return {0, 0};
  const double mid = -b / (2 * a), half = std::sqrt(disc) / (2 * a);
  return {mid - half, mid + half};
}

// {t : |p + t d| <= h}
Interval slab_interval(double p, double d, double h) {
  if (d == 0) return std::fabs(p) <= h ? Interval{} : Interval{0, 0};
  double t1 = (-h - p) / d, t2 = (h - p) / d;
  if (t1 > t2) std::swap(t1, t2);
  return {t1, t2};
}

Interval intersect(Interval x, Interval y) { return {std::max(x.lo, y.lo), std::min(x.hi, y.hi)}; }

// World half-extent of a shape along each axis (exact for ellipsoids, a box bound for cylinders).
Vec3 half_extent(const Shape& s) {
  Vec3 e{};
  for (int j = 0; j < 3; ++j) {
    double sq = 0, box = 0;
    for (int k = 0; k < 3; ++k) {
      sq += std::pow(s.semi_axes[k] * s.axes[k][j], 2);
      box += s.semi_axes[k] * std::fabs(s.axes[k][j]);
    }
    e[j] = s.kind == Shape::Kind::Ellipsoid ? std::sqrt(sq) : box;
  }
  return e;
}

}  // namespace

bool Shape::contains(const Vec3& p) const {
  const Vec3 u = to_unit(*this, sub(p, centre));
  if (kind == Kind::Ellipsoid) return dot(u, u) <= 1.0;
  return u[0] * u[0] + u[1] * u[1] <= 1.0 && std::fabs(u[2]) <= 1.0;
}

double Shape::chord_length(const Vec3& a, const Vec3& b, bool infinite) const {
  const Vec3 d = sub(b, a);
  const double len = std::sqrt(dot(d, d));
  if (len == 0) return 0.0;
  // Along the line p(t) = a + t d, in unit-scaled local coordinates u(t) = ua + t ud.
  const Vec3 ua = to_unit(*this, sub(a, centre));
  const Vec3 ud = to_unit(*this, d);
  Interval in;
  if (kind == Kind::Ellipsoid) {
    in = quadratic_interval(dot(ud, ud), 2 * dot(ua, ud), dot(ua, ua) - 1);
  } else {
    const double A = ud[0] * ud[0] + ud[1] * ud[1];
    const double B = 2 * (ua[0] * ud[0] + ua[1] * ud[1]);
    const double C = ua[0] * ua[0] + ua[1] * ua[1] - 1;
    in = intersect(quadratic_interval(A, B, C), slab_interval(ua[2], ud[2], 1.0));
  }
  if (!infinite) in = intersect(in, Interval{0.0, 1.0});
  if (in.empty()) return 0.0;
  return (in.hi - in.lo) * len;
}

double Shape::volume() const {
  const double p = semi_axes[0] * semi_axes[1] * semi_axes[2];
  return kind == Kind::Ellipsoid ? 4.0 / 3.0 * std::numbers::pi * p : std::numbers::pi * p * 2.0;
}

std::array<Vec3, 3> rotation_zyx_deg(double phi, double theta, double psi) {
  const double r = std::numbers::pi / 180.0;
  const double cz = std::cos(phi * r), sz = std::sin(phi * r);
  const double cy = std::cos(theta * r), sy = std::sin(theta * r);
  const double cx = std::cos(psi * r), sx = std::sin(psi * r);
  // M = Rz(phi) Ry(theta) Rx(psi) maps local to world; the local axes in world
  // coordinates are M's columns, returned as rows.
  const double m[3][3] = {{cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx},
                          {sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx},
                          {-sy, cy * sx, cy * cx}};
  std::array<Vec3, 3> axes;
  for (int k = 0; k < 3; ++k) axes[k] = {m[0][k], m[1][k], m[2][k]};
  return axes;
}

double Phantom::value_at(const Vec3& p) const {
  double v = 0;
  for (const Shape& s : shapes)
    if (s.contains(p)) v += s.value;
  return v;
}

double Phantom::line_integral(const Vec3& a, const Vec3& b) const {
  double sum = 0;
  for (const Shape& s : shapes) sum += s.value * s.chord_length(a, b);
  return sum;
}

double Phantom::integral() const {
  double sum = 0;
  for (const Shape& s : shapes) sum += s.value * s.volume();
  return sum;
}

VolumeF Phantom::voxelize(const Grid3& grid, int supersampling) const {
  const int ss = supersampling;
  if (ss < 1) throw Error("Phantom::voxelize: supersampling must be >= 1, got " + std::to_string(ss));
  std::vector<double> acc(grid.count(), 0.0);
  const double inv = 1.0 / (static_cast<double>(ss) * ss * ss);
  for (const Shape& s : shapes) {  // shapes add, so each one only visits its bounding box
    const Vec3 ext = half_extent(s);
    int lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
      const double h = 0.5 * grid.voxel_mm[a];
      lo[a] = std::max(0, static_cast<int>(std::floor((s.centre[a] - ext[a] - h - grid.origin_mm[a]) / grid.voxel_mm[a])));
      hi[a] = std::min(grid.dims[a] - 1,
                       static_cast<int>(std::ceil((s.centre[a] + ext[a] + h - grid.origin_mm[a]) / grid.voxel_mm[a])));
    }
    #pragma omp parallel for schedule(dynamic)
    for (int k = lo[2]; k <= hi[2]; ++k)
      for (int j = lo[1]; j <= hi[1]; ++j)
        for (int i = lo[0]; i <= hi[0]; ++i) {
          const Vec3 c = grid.centre(i, j, k);
          int inside = 0;
          for (int sk = 0; sk < ss; ++sk)
            for (int sj = 0; sj < ss; ++sj)
              for (int si = 0; si < ss; ++si) {
                // Sub-sample centres: ((m + 1/2)/s − 1/2)·voxel around the voxel centre.
                const Vec3 p{c[0] + ((si + 0.5) / ss - 0.5) * grid.voxel_mm[0],
                             c[1] + ((sj + 0.5) / ss - 0.5) * grid.voxel_mm[1],
                             c[2] + ((sk + 0.5) / ss - 0.5) * grid.voxel_mm[2]};
                inside += s.contains(p);
              }
          if (inside) acc[grid.index(i, j, k)] += s.value * inside * inv;
        }
  }
  VolumeF v(grid);
  for (std::size_t n = 0; n < acc.size(); ++n) v.data[n] = static_cast<float>(acc[n]);
  return v;
}

namespace {

double positive(const Scene& scene, const std::string& key, double x) {
  if (!(x > 0) || !std::isfinite(x))
    throw InputError(scene.where(key) + " must be finite and > 0, got " + std::to_string(x));
  return x;
}

Shape shape_from_scene(const Scene& scene, const std::string& ek) {
  Shape s;
  const std::string type = scene.require<std::string>(ek + ".type");
  if (type == "sphere") {
    const double r = positive(scene, ek + ".radius", scene.require<double>(ek + ".radius"));
    s.semi_axes = {r, r, r};
  } else if (type == "ellipsoid") {
    const auto ax = scene.require<std::array<double, 3>>(ek + ".semi_axes");
    for (int a = 0; a < 3; ++a) s.semi_axes[a] = positive(scene, ek + ".semi_axes", ax[a]);
  } else if (type == "cylinder") {
    s.kind = Shape::Kind::Cylinder;
    const bool has_r = scene.has(ek + ".radius"), has_rr = scene.has(ek + ".radii");
    if (has_r == has_rr)
      throw InputError(scene.where(ek) + " (cylinder) needs exactly one of 'radius' or 'radii' = [rx, ry]");
    if (has_r) {
      const double r = positive(scene, ek + ".radius", scene.require<double>(ek + ".radius"));
      s.semi_axes[0] = s.semi_axes[1] = r;
    } else {
      const auto rr = scene.require<std::vector<double>>(ek + ".radii");
      if (rr.size() != 2)
        throw InputError(scene.where(ek + ".radii") + " must be [rx, ry], got " + std::to_string(rr.size()) + " values");
      s.semi_axes[0] = positive(scene, ek + ".radii", rr[0]);
      s.semi_axes[1] = positive(scene, ek + ".radii", rr[1]);
    }
    s.semi_axes[2] = 0.5 * positive(scene, ek + ".length", scene.require<double>(ek + ".length"));  // full length
  } else {
    throw InputError(scene.where(ek + ".type") + " must be \"sphere\", \"ellipsoid\" or \"cylinder\", got \"" +
                     type + "\"");
  }
  const auto c = scene.require<std::array<double, 3>>(ek + ".centre");
  for (int a = 0; a < 3; ++a) {
    if (!std::isfinite(c[a])) throw InputError(scene.where(ek + ".centre") + " must be finite");
    s.centre[a] = c[a];
  }
  if (scene.has(ek + ".angles")) {
    const auto ang = scene.require<std::array<double, 3>>(ek + ".angles");
    for (double x : ang)
      if (!std::isfinite(x)) throw InputError(scene.where(ek + ".angles") + " must be finite");
    s.axes = rotation_zyx_deg(ang[0], ang[1], ang[2]);
  }
  s.value = scene.require<double>(ek + ".value");
  if (!std::isfinite(s.value)) throw InputError(scene.where(ek + ".value") + " must be finite");
  return s;
}

}  // namespace

Phantom Phantom::from_scene(const Scene& scene, const std::string& key) {
  const std::size_t n = scene.array_size(key);
  if (n == 0)
    throw InputError(scene.where(key) + " is missing: the phantom needs at least one [[" + key + "]] table");
  Phantom p;
  p.shapes.reserve(n);
  for (std::size_t i = 0; i < n; ++i) p.shapes.push_back(shape_from_scene(scene, scene.element_key(key, i)));
  return p;
}

}  // namespace tomo
