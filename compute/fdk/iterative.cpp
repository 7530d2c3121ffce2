// SIRT, OS-SART, CGLS and FISTA-TV (see iterative.hpp). Vectors are float (as every backend
// holds them); sums and norms are accumulated in double.
#include "compute/fdk/iterative.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/tv_prox.hpp"

namespace tomo::fdk {
namespace {

using Vec = std::vector<float>;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double dot(std::span<const float> a, std::span<const float> b) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (std::size_t i = 0; i < a.size(); ++i) s += double(a[i]) * b[i];
  return s;
}

// 1/v where v > eps·max(v), else 0: SIRT's row and column normalisations.
void invert_sums(Vec& v) {
  float peak = 0;
  for (float e : v) peak = std::max(peak, e);
  const float eps = 1e-6f * peak;
  for (float& e : v) e = e > eps ? 1.0f / e : 0.0f;
}

void clamp_nonnegative(Vec& x, bool on) {
  if (on)
    for (float& e : x) e = std::max(e, 0.0f);
}

// The relative residual ‖r‖/‖b‖ from ‖r‖².
double relative(double r2, double b2) { return b2 > 0 ? std::sqrt(r2 / b2) : kNaN; }

// One SIRT step over `views` (empty: all): x ← P(x + C·Aᵀ(R·(b_views − A_views x))).
double sart_step(ConeBeamProjector& A, std::span<const float> b, std::span<const int> views, std::size_t image,
                 const Vec& R, const Vec& C, bool nonnegative, Vec& x, Vec& proj, Vec& back) {
  A.forward(x, proj, views);
  double r2 = 0;
  for (std::size_t k = 0; k < proj.size() / image; ++k) {
    const std::size_t n = views.empty() ? k : static_cast<std::size_t>(views[k]);
    for (std::size_t p = 0; p < image; ++p) {
      const float r = b[n * image + p] - proj[k * image + p];
      r2 += double(r) * r;
      proj[k * image + p] = r * R[k * image + p];
    }
  }
  A.back(proj, back, views);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] += C[i] * back[i];
  clamp_nonnegative(x, nonnegative);
  return r2;
}

// Row sums A·1 (1/them) and column sums Aᵀ·1 (1/them) of the sub-operator of `views`.
void sart_weights(ConeBeamProjector& A, std::size_t voxels, std::size_t pixels, std::span<const int> views, Vec& R,
                  Vec& C) {
  R.assign(pixels, 0.0f);
  C.assign(voxels, 0.0f);
  const Vec ones_x(voxels, 1.0f), ones_y(pixels, 1.0f);
  A.forward(ones_x, R, views);
  A.back(ones_y, C, views);
  invert_sums(R);
  invert_sums(C);
}

void check_sizes(const ConeGeometry& g, std::span<const float> b) {
  if (b.size() != g.views() * g.image_size())
    throw Error(str_cat("iterative reconstruction: ", b.size(), " line integrals for ", g.views(), " views of ", g.sx,
                        "x", g.sy));
}

}  // namespace

VolumeF sirt(ConeBeamProjector& A, const ConeGeometry& g, std::span<const float> b, const IterativeOptions& o,
             const IterationCallback& cb) {
  check_sizes(g, b);
  Vec R, C, x(g.grid.count(), 0.0f), proj(b.size()), back(x.size());
  sart_weights(A, x.size(), b.size(), {}, R, C);
  const double b2 = dot(b, b);
  for (int it = 1; it <= o.iterations; ++it) {
    const double r2 = sart_step(A, b, {}, g.image_size(), R, C, o.nonnegative, x, proj, back);
    if (cb) cb(it, relative(r2, b2));
  }
  VolumeF v(g.grid);
  v.data = std::move(x);
  return v;
}

VolumeF os_sart(ConeBeamProjector& A, const ConeGeometry& g, std::span<const float> b, const IterativeOptions& o,
                const IterationCallback& cb) {
  check_sizes(g, b);
  const int S = std::clamp(o.subsets, 1, g.views());
  std::vector<std::vector<int>> subsets(S);
  for (int n = 0; n < g.views(); ++n) subsets[n % S].push_back(n);  // interleaved: each spans the arc
  std::vector<Vec> R(S), C(S);
  for (int s = 0; s < S; ++s) sart_weights(A, g.grid.count(), subsets[s].size() * g.image_size(), subsets[s], R[s], C[s]);
  Vec x(g.grid.count(), 0.0f), back(x.size()), proj;
  const double b2 = dot(b, b);
  for (int it = 1; it <= o.iterations; ++it) {
    double r2 = 0;  // of each subset before its update: an estimate of the full residual
    for (int s = 0; s < S; ++s) {
      proj.resize(subsets[s].size() * g.image_size());
      r2 += sart_step(A, b, subsets[s], g.image_size(), R[s], C[s], o.nonnegative, x, proj, back);
    }
    if (cb) cb(it, relative(r2, b2));
  }
  VolumeF v(g.grid);
  v.data = std::move(x);
  return v;
}

VolumeF cgls(ConeBeamProjector& A, const ConeGeometry& g, std::span<const float> b, const IterativeOptions& o,
             const IterationCallback& cb) {
  // CGLS on min ‖Ax − b‖² from x = 0 (Hestenes–Stiefel on the normal equations, residual form).
  check_sizes(g, b);
  Vec x(g.grid.count(), 0.0f), r(b.begin(), b.end()), s(x.size()), q(b.size());
  A.back(r, s);
  Vec p = s;
  double gamma = dot(s, s);
  const double b2 = dot(b, b);
  double r2 = b2;
  for (int it = 1; it <= o.iterations; ++it) {
    if (gamma <= 0) {  // converged exactly (or b = 0)
      if (cb) cb(it, relative(r2, b2));
      continue;
    }
    A.forward(p, q);
    const double qq = dot(q, q);
    if (!(qq > 0)) break;
    const float alpha = static_cast<float>(gamma / qq);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += alpha * p[i];
    for (std::size_t i = 0; i < r.size(); ++i) r[i] -= alpha * q[i];
    r2 = dot(r, r);
    A.back(r, s);
    const double gamma_next = dot(s, s);
    const float beta = static_cast<float>(gamma_next / gamma);
    gamma = gamma_next;
    for (std::size_t i = 0; i < p.size(); ++i) p[i] = s[i] + beta * p[i];
    if (cb) cb(it, relative(r2, b2));
  }
  VolumeF v(g.grid);
  v.data = std::move(x);
  return v;
}

// The shared TV proximal operator (compute/core/tv_prox.hpp) under fdk's signature.
void tv_prox(const Grid3& grid, std::span<const float> z, double mu, int iterations, bool nonnegative,
             std::vector<float>& dual, std::span<float> x) {
  (void)tomo::tv_prox<float>(grid, z, {.weight = mu, .iterations = iterations, .nonnegative = nonnegative}, dual, x);
}

VolumeF fista_tv(ConeBeamProjector& A, const ConeGeometry& g, std::span<const float> b, const IterativeOptions& o,
                 const IterationCallback& cb) {
  // FISTA on ½‖Ax − b‖²_R + λ·TV(x) in the metric of SIRT's preconditioner: the gradient step is
  // SIRT's, z = y + C·Aᵀ·R·(b − A·y) (R, C: inverse row and column sums, so step and λ need no
  // operator norm), then the TV prox with weight λ in the volume's units (mm⁻¹). The prox is
  // taken in the plain metric: exact where C is uniform (the volume's interior).
  check_sizes(g, b);
  const std::size_t N = g.grid.count();
  Vec R, C;
  sart_weights(A, N, b.size(), {}, R, C);
  Vec x(N, 0.0f), y(N, 0.0f), x_prev(N), z(N), grad(N), proj(b.size()), dual(3 * N, 0.0f);
  double t = 1.0;
  const double b2 = dot(b, b);
  for (int it = 1; it <= o.iterations; ++it) {
    z = y;
    const double r2 = sart_step(A, b, {}, g.image_size(), R, C, false, z, proj, grad);
    x_prev.swap(x);
    tv_prox(g.grid, z, o.tv_lambda, o.tv_inner, o.nonnegative, dual, x);
    const double t_next = 0.5 * (1.0 + std::sqrt(1.0 + 4.0 * t * t));
    const float m = static_cast<float>((t - 1.0) / t_next);
    for (std::size_t i = 0; i < N; ++i) y[i] = x[i] + m * (x[i] - x_prev[i]);
    t = t_next;
    if (cb) cb(it, relative(r2, b2));  // at y, the point the gradient was taken
  }
  VolumeF v(g.grid);
  v.data = std::move(x);
  return v;
}

VolumeF reconstruct_iterative(ConeBeamProjector& A, const ConeGeometry& g, std::span<const float> b,
                              const IterativeOptions& o, const IterationCallback& cb) {
  switch (o.algorithm) {
    case Algorithm::sirt: return sirt(A, g, b, o, cb);
    case Algorithm::os_sart: return os_sart(A, g, b, o, cb);
    case Algorithm::cgls: return cgls(A, g, b, o, cb);
    case Algorithm::tv: return fista_tv(A, g, b, o, cb);
    case Algorithm::fdk: break;
  }
  throw Error("reconstruct_iterative: fdk is not iterative");
}

}  // namespace tomo::fdk
