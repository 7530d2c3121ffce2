// The TV proximal step (see tv_prox.hpp): dual p (3 per voxel, |p_v| ≤ 1) of
// min_x ½‖x − z‖² + w·Σ_v |∇x_v| (over x ≥ 0 when asked), with x(p) = P(z − w·∇ᵀp) and the
// accelerated projected gradient ascent p ← P(p + ∇x(p) / (12·w)) (‖∇‖² ≤ 12 in 3D).
#include "compute/core/tv_prox.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace tomo {
namespace {

// x = P(z − w·∇ᵀp); ∇ is the forward difference, zero at the last index of each axis.
template <class T>
void primal(const Grid3& g, std::span<const T> z, double w, bool nonnegative, const std::vector<T>& p,
            std::span<T> x) {
  const long nx = g.dims[0], ny = g.dims[1], nz = g.dims[2];
  const long sy = nx, sz = nx * ny;
#pragma omp parallel for
  for (long k = 0; k < nz; ++k)
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i) {
        const long v = k * sz + j * sy + i;
        double div = 0;  // (∇ᵀp)_v = Σ_axes p_a[v − e_a] − p_a[v] (each term where it exists)
        if (i < nx - 1) div -= p[3 * v];
        if (i > 0) div += p[3 * (v - 1)];
        if (j < ny - 1) div -= p[3 * v + 1];
        if (j > 0) div += p[3 * (v - sy) + 1];
        if (k < nz - 1) div -= p[3 * v + 2];
        if (k > 0) div += p[3 * (v - sz) + 2];
        const double e = z[v] - w * div;
        x[v] = static_cast<T>(nonnegative ? std::max(e, 0.0) : e);
      }
}

// p_next = P(r + ∇x / (12·w)), P projecting each voxel's 3-vector into the unit ball.
template <class T>
void ascend(const Grid3& g, std::span<const T> x, double w, const std::vector<T>& r, std::vector<T>& p_next) {
  const long nx = g.dims[0], ny = g.dims[1], nz = g.dims[2];
  const long sy = nx, sz = nx * ny;
  const double s = 1.0 / (12.0 * w);
#pragma omp parallel for
  for (long k = 0; k < nz; ++k)
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i) {
        const long v = k * sz + j * sy + i;
        const double gx = i < nx - 1 ? x[v + 1] - x[v] : 0.0;
        const double gy = j < ny - 1 ? x[v + sy] - x[v] : 0.0;
        const double gz = k < nz - 1 ? x[v + sz] - x[v] : 0.0;
        const double a = r[3 * v] + s * gx, b = r[3 * v + 1] + s * gy, c = r[3 * v + 2] + s * gz;
        const double scale = 1.0 / std::max(1.0, std::sqrt(a * a + b * b + c * c));
        p_next[3 * v] = static_cast<T>(a * scale);
        p_next[3 * v + 1] = static_cast<T>(b * scale);
        p_next[3 * v + 2] = static_cast<T>(c * scale);
      }
}

template <class T>
double max_change(const std::vector<T>& a, const std::vector<T>& b) {
  double m = 0;
  const std::int64_t n = static_cast<std::int64_t>(a.size());
#pragma omp parallel for reduction(max : m)
  for (std::int64_t i = 0; i < n; ++i) m = std::max(m, std::abs(double(a[i]) - double(b[i])));
  return m;
}

}  // namespace

template <class T>
int tv_prox(const Grid3& g, std::span<const T> z, const TvProxOptions& o, std::vector<T>& dual, std::span<T> x) {
  const std::size_t N = g.count();
  dual.resize(3 * N, T(0));
  const double w = o.weight;
  if (!(w > 0)) {
    for (std::size_t v = 0; v < N; ++v) x[v] = o.nonnegative ? std::max(z[v], T(0)) : z[v];
    return 0;
  }
  std::vector<T> r = dual, p_next(3 * N);
  double t = 1.0;
  int it = 0;
  while (it < o.iterations) {
    primal<T>(g, z, w, o.nonnegative, r, x);
    ascend<T>(g, x, w, r, p_next);
    ++it;
    const bool settled = o.tolerance > 0 && max_change(p_next, dual) <= o.tolerance;
    const double t_next = 0.5 * (1.0 + std::sqrt(1.0 + 4.0 * t * t));
    const T m = static_cast<T>((t - 1.0) / t_next);
    for (std::size_t i = 0; i < 3 * N; ++i) r[i] = p_next[i] + m * (p_next[i] - dual[i]);
    dual.swap(p_next);
    t = t_next;
    if (settled) break;
  }
  primal<T>(g, z, w, o.nonnegative, dual, x);
  return it;
}

template int tv_prox<float>(const Grid3&, std::span<const float>, const TvProxOptions&, std::vector<float>&,
                            std::span<float>);
template int tv_prox<double>(const Grid3&, std::span<const double>, const TvProxOptions&, std::vector<double>&,
                             std::span<double>);

double total_variation(const Grid3& g, std::span<const double> x) {
  const long nx = g.dims[0], ny = g.dims[1], nz = g.dims[2];
  const long sy = nx, sz = nx * ny;
  double tv = 0;
#pragma omp parallel for reduction(+ : tv)
  for (long k = 0; k < nz; ++k)
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i) {
        const long v = k * sz + j * sy + i;
        const double gx = i < nx - 1 ? x[v + 1] - x[v] : 0.0;
        const double gy = j < ny - 1 ? x[v + sy] - x[v] : 0.0;
        const double gz = k < nz - 1 ? x[v + sz] - x[v] : 0.0;
        tv += std::sqrt(gx * gx + gy * gy + gz * gz);
      }
  return tv;
}

}  // namespace tomo
