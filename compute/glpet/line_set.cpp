// The glpet line set ([Toth2010] §II): pixel centres on the primary module, analytic
// intersection with the secondary plane, ray-marched transmission, solid angle.
#include "compute/glpet/line_set.hpp"

#include <algorithm>
#include <limits>
#include <numbers>

#include "compute/glpet/line_math.hpp"

namespace tomo::glpet {

Extinction::Extinction(const VolumeF& v)
    : data(v.data.data()), nx(v.grid.dims[0]), ny(v.grid.dims[1]), nz(v.grid.dims[2]), origin(v.grid.origin_mm) {
  for (int a = 0; a < 3; ++a) inv_voxel[a] = 1.0 / v.grid.voxel_mm[a];
  empty = std::all_of(v.data.begin(), v.data.end(), [](float s) { return s == 0.0f; });
}

double Extinction::sample(const Vec3& y) const {
  const double gx = (y[0] - origin[0]) * inv_voxel[0], gy = (y[1] - origin[1]) * inv_voxel[1],
               gz = (y[2] - origin[2]) * inv_voxel[2];
  const int n[3] = {nx, ny, nz};
  return line_math::sigma_at<line_math::Lerp::plain>(gx, gy, gz, n, [this](int i, int j, int k, double* c) {
    if (i >= 0 && j >= 0 && k >= 0 && i + 1 < nx && j + 1 < ny && k + 1 < nz) {
      // Interior fast path: the 8 texels by stride.
      const std::size_t sy = std::size_t(nx), sz = std::size_t(nx) * ny;
      const float* p = data + std::size_t(i) + sy * j + sz * k;
      c[0] = p[0], c[1] = p[1], c[2] = p[sy], c[3] = p[sy + 1];
      c[4] = p[sz], c[5] = p[sz + 1], c[6] = p[sz + sy], c[7] = p[sz + sy + 1];
    } else {
      c[0] = at(i, j, k), c[1] = at(i + 1, j, k), c[2] = at(i, j + 1, k), c[3] = at(i + 1, j + 1, k);
      c[4] = at(i, j, k + 1), c[5] = at(i + 1, j, k + 1), c[6] = at(i, j + 1, k + 1), c[7] = at(i + 1, j + 1, k + 1);
    }
  });
}

double Extinction::transmission(const Vec3& y1, const Vec3& y2, int K) const {
  if (empty) return 1.0;
  const int n[3] = {nx, ny, nz};
  double g0[3], dg[3];
  int k0 = 0, k1 = -1;
  if (!line_math::sample_range(y1, y2, origin, inv_voxel, n, K, g0, dg, k0, k1)) return 1.0;
  // The cpu samples at world points y(t) (the CUDA kernels at g0 + t·dg in fp32).
  const Vec3 d = sub(y1, y2);
  const double sum = line_math::midpoint_sum<double>(k0, k1, K, [&](double t) { return sample(add(y2, scale(d, t))); });
  return std::exp(-sum * norm(d) / K);
}

int primary_module(const ModulePair& pair, const Vec3& v) {
  return pair.modules[1].distance(v) > pair.modules[0].distance(v) ? 1 : 0;
}

Correspondence::Correspondence(const ModulePair& pr, const Vec3& vv, int RR) : pair(&pr), R(RR), v(vv) {
  primary = glpet::primary_module(pr, vv);
  const Module& m = pr.modules[primary];
  origin = m.corner();
  du = scale(m.axis_a, m.pitch_a / R);
  dv = scale(m.axis_t, m.pitch_t / R);
  width = R * m.n_a;
  height = R * m.n_t;
  pixel_area = m.pitch_a * m.pitch_t / (double(R) * R);
  const Module& m2 = pr.modules[1 - primary];
  sec_corner = m2.corner();
  sec_plane = dot(sub(m2.centre, v), m2.normal);
}

Line Correspondence::trace(int X, int Y, const Extinction* ext, int K) const {
  Line L;
  const Module& m1 = primary_module();
  const Module& m2 = secondary_module();
  L.p = X / R;
  L.q = Y / R;
  L.y1 = pixel_centre(X, Y);
  const Vec3 d = sub(L.y1, v);
  // The line v + λ·d meets the secondary plane at λ = (c2 − v)·n2 / (d·n2); the
  // secondary must be on the other side of v (λ < 0): the mirroring of §II.A.
  const double dn = dot(d, m2.normal);
  if (dn == 0) return L;
  const double lambda = sec_plane / dn;
  if (!(lambda < 0)) return L;
  L.y2 = add(v, scale(d, lambda));
  const Vec3 rel = sub(L.y2, sec_corner);
  const double a = dot(rel, m2.axis_a) / m2.pitch_a, t = dot(rel, m2.axis_t) / m2.pitch_t;
  if (!(a >= 0 && t >= 0 && a < m2.n_a && t < m2.n_t)) return L;
  L.r = std::min(int(a), m2.n_a - 1);
  L.s = std::min(int(t), m2.n_t - 1);
  L.hit = true;
  L.lor = primary == 0 ? pair->lor_index(L.p, L.q, L.r, L.s) : pair->lor_index(L.r, L.s, L.p, L.q);
  // Δω = ΔA·cosθ/|y1 − v|² ([Toth2010] §II.B), weight a = T·Δω/(2π) ([Toth2010] eq. (5)).
  const double d2 = dot(d, d);
  const double cos_theta = std::fabs(dot(d, m1.normal)) / std::sqrt(d2);
  const double domega = pixel_area * cos_theta / d2;
  const double T = ext ? ext->transmission(L.y1, L.y2, K) : 1.0;
  L.weight = T * domega / (2 * std::numbers::pi);
  return L;
}

}  // namespace tomo::glpet
