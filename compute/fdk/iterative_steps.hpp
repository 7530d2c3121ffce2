// SIRT, OS-SART, CGLS and FISTA-TV written once over a vector space S, so that the cpu path
// (std::vector, iterative.cpp) and a GPU backend (device buffers, no host round trip per
// iteration) run the same steps. S provides:
//   Vec                                     a float vector (movable)
//   filled(n, value), copy_of(v)            new vectors
//   copy(src, dst)                          dst ← src (same size)
//   forward(x, y, views), back(y, x, views) the projector pair on S's vectors
//   back_voxel(y, x, views)                 B ≈ Aᵀ, voxel-driven (SIRT, OS-SART, TV)
//   dot(a, b)                               Σ a·b in double
//   invert_sums(v)                          v ← 1/v where v > 1e-6·max(v), else 0
//   weighted_residual(b, views, image, p, R) p ← R·(b_views − p); returns Σ (b_views − p)²
//   add_product(x, C, d, nonnegative)       x ← x + C·d (then max(x, 0) when nonnegative)
//   axpy(a, x, y), xpby(x, b, y)            y ← y + a·x;  y ← x + b·y
//   extrapolate(x, x_prev, m, y)            y ← x + m·(x − x_prev)
//   tv_prox(grid, z, mu, inner, nonnegative, x)   with its own warm-started dual
//   to_host(v), from_host(h)                std::vector<float> ↔ Vec
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/fdk/iterative.hpp"

namespace tomo::fdk::steps {

inline double relative(double r2, double b2) {
  return b2 > 0 ? std::sqrt(r2 / b2) : std::numeric_limits<double>::quiet_NaN();
}

// The start image: IterativeOptions::initial (its size checked) or zeros.
template <class S, class V = typename S::Vec>
V start_image(S& s, std::size_t voxels, const IterativeOptions& o) {
  if (o.initial.empty()) return s.filled(voxels, 0.0f);
  if (o.initial.size() != voxels)
    throw Error(str_cat("reconstruct_iterative: the initial image has ", o.initial.size(), " voxels, the grid ", voxels));
  return s.from_host(o.initial);
}

// Hands the image to o.on_image after the iterations o.save_iterations lists.
template <class S, class V = typename S::Vec>
void save_if_listed(S& s, const IterativeOptions& o, int it, const V& x) {
  if (o.on_image && std::binary_search(o.save_iterations.begin(), o.save_iterations.end(), it))
    o.on_image(it, s.to_host(x));
}

// One SIRT step over `views` (empty: all): x ← P(x + C·B(R·(b_views − A_views x))), B the
// voxel-driven approximation of Aᵀ (as ASTRA's SIRT; C normalises it, so B's scale cancels).
template <class S, class V = typename S::Vec>
double sart_step(S& s, const V& b, std::span<const int> views, std::size_t image, const V& R, const V& C,
                 bool nonnegative, V& x, V& proj, V& back) {
  s.forward(x, proj, views);
  const double r2 = s.weighted_residual(b, views, image, proj, R);
  s.back_voxel(proj, back, views);
  s.add_product(x, C, back, nonnegative);
  return r2;
}

// Row sums A·1 (1/them) and column sums B·1 (1/them) of the sub-operator of `views`.
template <class S, class V = typename S::Vec>
void sart_weights(S& s, std::size_t voxels, std::size_t pixels, std::span<const int> views, V& R, V& C) {
  R = s.filled(pixels, 0.0f);
  C = s.filled(voxels, 0.0f);
  {
    const V ones_x = s.filled(voxels, 1.0f);
    s.forward(ones_x, R, views);
  }
  {
    const V ones_y = s.filled(pixels, 1.0f);
    s.back_voxel(ones_y, C, views);
  }
  s.invert_sums(R);
  s.invert_sums(C);
}

template <class S, class V = typename S::Vec>
std::vector<float> sirt(S& s, const ConeGeometry& g, const V& b, const IterativeOptions& o,
                        const IterationCallback& cb) {
  const std::size_t N = g.grid.count(), M = b.size();
  V R, C;
  sart_weights(s, N, M, {}, R, C);
  V x = start_image(s, N, o), proj = s.filled(M, 0.0f), back = s.filled(N, 0.0f);
  const double b2 = s.dot(b, b);
  for (int it = 1; it <= o.iterations; ++it) {
    const double r2 = sart_step(s, b, {}, g.image_size(), R, C, o.nonnegative, x, proj, back);
    if (cb) cb(it, relative(r2, b2));
    save_if_listed(s, o, it, x);
  }
  return s.to_host(x);
}

template <class S, class V = typename S::Vec>
std::vector<float> os_sart(S& s, const ConeGeometry& g, const V& b, const IterativeOptions& o,
                           const IterationCallback& cb) {
  const std::size_t N = g.grid.count();
  const int nsub = std::clamp(o.subsets, 1, g.views());
  std::vector<std::vector<int>> subsets(nsub);
  for (int n = 0; n < g.views(); ++n) subsets[n % nsub].push_back(n);  // interleaved: each spans the arc
  std::vector<V> R(nsub), C(nsub), proj(nsub);
  for (int k = 0; k < nsub; ++k) {
    sart_weights(s, N, subsets[k].size() * g.image_size(), subsets[k], R[k], C[k]);
    proj[k] = s.filled(subsets[k].size() * g.image_size(), 0.0f);
  }
  V x = start_image(s, N, o), back = s.filled(N, 0.0f);
  const double b2 = s.dot(b, b);
  for (int it = 1; it <= o.iterations; ++it) {
    double r2 = 0;  // of each subset before its update: an estimate of the full residual
    for (int k = 0; k < nsub; ++k)
      r2 += sart_step(s, b, subsets[k], g.image_size(), R[k], C[k], o.nonnegative, x, proj[k], back);
    if (cb) cb(it, relative(r2, b2));
    save_if_listed(s, o, it, x);
  }
  return s.to_host(x);
}

template <class S, class V = typename S::Vec>
std::vector<float> cgls(S& s, const ConeGeometry& g, const V& b, const IterativeOptions& o,
                        const IterationCallback& cb) {
  // CGLS on min ‖Ax − b‖² from x = 0 (Hestenes–Stiefel on the normal equations, residual form).
  const std::size_t N = g.grid.count(), M = b.size();
  V x = start_image(s, N, o), r = s.copy_of(b), grad = s.filled(N, 0.0f), q = s.filled(M, 0.0f);
  const auto transpose = [&](const V& y, V& out) {  // Aᵀ, or B as ASTRA's CGLS3D_CUDA
    if (o.cgls_back == CglsBack::voxel)
      s.back_voxel(y, out, {});
    else
      s.back(y, out, {});
  };
  if (!o.initial.empty()) {  // r = b − A·x₀
    s.forward(x, q, {});
    s.axpy(-1.0f, q, r);
  }
  transpose(r, grad);
  V p = s.copy_of(grad);
  double gamma = s.dot(grad, grad);
  const double b2 = s.dot(b, b);
  double r2 = o.initial.empty() ? b2 : s.dot(r, r);
  for (int it = 1; it <= o.iterations; ++it) {
    if (gamma <= 0) {  // converged exactly (or b = 0)
      if (cb) cb(it, relative(r2, b2));
      save_if_listed(s, o, it, x);
      continue;
    }
    s.forward(p, q, {});
    const double qq = s.dot(q, q);
    if (!(qq > 0)) break;
    const float alpha = static_cast<float>(gamma / qq);
    s.axpy(alpha, p, x);
    s.axpy(-alpha, q, r);
    r2 = s.dot(r, r);
    transpose(r, grad);
    const double gamma_next = s.dot(grad, grad);
    const float beta = static_cast<float>(gamma_next / gamma);
    gamma = gamma_next;
    s.xpby(grad, beta, p);
    if (cb) cb(it, relative(r2, b2));
    save_if_listed(s, o, it, x);
  }
  return s.to_host(x);
}

template <class S, class V = typename S::Vec>
std::vector<float> fista_tv(S& s, const ConeGeometry& g, const V& b, const IterativeOptions& o,
                            const IterationCallback& cb) {
  // FISTA on ½‖Ax − b‖²_R + λ·TV(x) in the metric of SIRT's preconditioner: the gradient step is
  // SIRT's, z = y + C·B·R·(b − A·y) (R, C: inverse row and column sums, so step and λ need no
  // operator norm), then the TV prox with weight λ in the volume's units (mm⁻¹). The prox is
  // taken in the plain metric: exact where C is uniform (the volume's interior).
  const std::size_t N = g.grid.count(), M = b.size();
  V R, C;
  sart_weights(s, N, M, {}, R, C);
  V x = start_image(s, N, o), y = s.copy_of(x), x_prev = s.copy_of(x), z = s.filled(N, 0.0f),
    grad = s.filled(N, 0.0f), proj = s.filled(M, 0.0f);
  double t = 1.0;
  const double b2 = s.dot(b, b);
  for (int it = 1; it <= o.iterations; ++it) {
    s.copy(y, z);
    const double r2 = sart_step(s, b, {}, g.image_size(), R, C, false, z, proj, grad);
    std::swap(x_prev, x);
    s.tv_prox(g.grid, z, o.tv_lambda, o.tv_inner, o.nonnegative, x);
    const double t_next = 0.5 * (1.0 + std::sqrt(1.0 + 4.0 * t * t));
    const float m = static_cast<float>((t - 1.0) / t_next);
    s.extrapolate(x, x_prev, m, y);
    t = t_next;
    if (cb) cb(it, relative(r2, b2));  // at y, the point the gradient was taken
    save_if_listed(s, o, it, x);
  }
  return s.to_host(x);
}

template <class S, class V = typename S::Vec>
std::vector<float> reconstruct(S& s, const ConeGeometry& g, const V& b, const IterativeOptions& o,
                               const IterationCallback& cb) {
  switch (o.algorithm) {
    case Algorithm::sirt: return sirt(s, g, b, o, cb);
    case Algorithm::os_sart: return os_sart(s, g, b, o, cb);
    case Algorithm::cgls: return cgls(s, g, b, o, cb);
    case Algorithm::tv: return fista_tv(s, g, b, o, cb);
    case Algorithm::fdk: break;
  }
  throw Error("reconstruct_iterative: fdk is not iterative");
}

}  // namespace tomo::fdk::steps
