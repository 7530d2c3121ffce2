// The TV proximal step (see tv_prox in iterative.hpp): dual p (3 per voxel, |p_v| ≤ 1) of
// min_x ½‖x − z‖² + mu·Σ_v |∇x_v| over x ≥ 0, with x(p) = P(z − mu·∇ᵀp) and accelerated
// projected gradient ascent p ← P(p + ∇x(p) / (12·mu)) (‖∇‖² ≤ 12 in 3D).
#include <algorithm>
#include <cmath>

#include "compute/fdk/iterative.hpp"

namespace tomo::fdk {
namespace {

// x = P(z − mu·∇ᵀp); ∇ is the forward difference, zero at the last index of each axis.
void primal(const Grid3& g, std::span<const float> z, double mu, bool nonnegative, const std::vector<float>& p,
            std::span<float> x) {
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
        const double e = z[v] - mu * div;
        x[v] = static_cast<float>(nonnegative ? std::max(e, 0.0) : e);
      }
}

// p_next = P(r + ∇x / (12·mu)), P projecting each voxel's 3-vector into the unit ball.
void ascend(const Grid3& g, std::span<const float> x, double mu, const std::vector<float>& r, std::vector<float>& p_next) {
  const long nx = g.dims[0], ny = g.dims[1], nz = g.dims[2];
  const long sy = nx, sz = nx * ny;
  const double s = 1.0 / (12.0 * mu);
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
        p_next[3 * v] = static_cast<float>(a * scale);
        p_next[3 * v + 1] = static_cast<float>(b * scale);
        p_next[3 * v + 2] = static_cast<float>(c * scale);
      }
}

}  // namespace

void tv_prox(const Grid3& g, std::span<const float> z, double mu, int iterations, bool nonnegative,
             std::vector<float>& dual, std::span<float> x) {
  const std::size_t N = g.count();
  dual.resize(3 * N, 0.0f);
  if (!(mu > 0)) {
    for (std::size_t v = 0; v < N; ++v) x[v] = nonnegative ? std::max(z[v], 0.0f) : z[v];
    return;
  }
  std::vector<float> r = dual, p_next(3 * N);
  double t = 1.0;
  for (int it = 0; it < iterations; ++it) {
    primal(g, z, mu, nonnegative, r, x);
    ascend(g, x, mu, r, p_next);
    const double t_next = 0.5 * (1.0 + std::sqrt(1.0 + 4.0 * t * t));
    const float m = static_cast<float>((t - 1.0) / t_next);
    for (std::size_t i = 0; i < 3 * N; ++i) r[i] = p_next[i] + m * (p_next[i] - dual[i]);
    dual.swap(p_next);
    t = t_next;
  }
  primal(g, z, mu, nonnegative, dual, x);
}

}  // namespace tomo::fdk
