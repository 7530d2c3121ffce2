// PLS by the monotone FISTA of [Beck2009] (MFISTA, sec. V) with its backtracking step: α ≥ 0
// and/or the TV penalty. The smooth part f(α) = ‖u − Hα‖² (+ μλR(α), quadratic) has the gradient
// 2Hᵀ(Hα − u) (+ 2μλLᵀLα); each step is z = prox(y − ∇f(y)/L_f), prox the TV proximal operator
// of weight μλᾱ/L_f with the bound, or the projection on α ≥ 0 alone. f is quadratic, so the
// step's test f(z) ≤ f(y) + ⟨∇f(y), z − y⟩ + L_f/2‖z − y‖² is exact from Hz − Hy: L_f starts at
// 2λ(1 + 12μ with R; ‖LᵀL‖ ≤ 12 in 3D) and grows (the step is redone) where the test fails.
// MFISTA keeps the better of z and the last iterate, so the objective never increases. Hα is
// carried: Hz is the one forward per step, Hy the same combination of Hz, Hα_k, Hα_{k−1} as y;
// the one adjoint per iteration is Hᵀ(Hy − u).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "compute/core/log.hpp"
#include "compute/core/tv_prox.hpp"
#include "compute/oat/pls.hpp"

namespace tomo::oat {

namespace {
using Vec = std::vector<double>;

double squared_distance(std::span<const double> a, std::span<const double> b) {
  double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(a.size()); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return s;
}

// out = a + c1·(b − a) + c2·(a − prev)
void combine(const Vec& a, const Vec& b, const Vec& prev, double c1, double c2, Vec& out) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(a.size()); ++i)
    out[i] = a[i] + c1 * (b[i] - a[i]) + c2 * (a[i] - prev[i]);
}

// Step retries per iteration before the step test gives up (each at least doubles L_f).
constexpr int kMaxRetries = 30;
// Slack of the step test: a float backend's Hz − Hy carries rounding of order 1e-7‖Hz‖, large
// against a small step's ‖H(z − y)‖; a slightly long step only costs MFISTA a kept iterate.
constexpr double kStepSlack = 0.05;
}  // namespace

std::vector<double> run_pls_fista(Model& H, const Grid3& grid, std::span<const double> u, std::span<const double> htu,
                                  const PlsOptions& o, const PlsScale& scale,
                                  const std::function<void(const PlsIteration&)>& on_iteration) {
  const std::size_t N = grid.count(), M = u.size();
  const bool tv = o.regulariser == Regulariser::tv;
  const double mu_q = tv ? 0.0 : o.mu * scale.lambda;                // weight of R in the objective
  const double mu_tv = tv ? o.mu * scale.lambda * scale.alpha : 0.0;  // weight of TV
  double lipschitz = 2.0 * scale.lambda * (tv ? 1.0 : 1.0 + 12.0 * o.mu);
  const Vec zero(N, 0.0);
  const double b_norm = std::sqrt(squared_distance(htu, zero));

  Vec x(N, 0.0), x_prev(N, 0.0), y(N, 0.0), z(N), grad(N), step(N), d(N), dual;
  Vec hx(M, 0.0), hx_prev(M, 0.0), hy(M, 0.0), hz(M);
  auto objective = [&](std::span<const double> a, std::span<const double> ha, double& data) {
    data = squared_distance(u, ha);
    double f = data;
    if (mu_q != 0) f += mu_q * first_difference_penalty(grid, a);
    if (mu_tv != 0) f += mu_tv * total_variation(grid, a);
    return f;
  };
  double data_x = 0, f_x = objective(x, hx, data_x), residual = 1.0;
  auto report = [&](int it) {
    if (!on_iteration) return;
    PlsIteration s;
    s.iteration = it;
    s.objective = f_x;
    s.data_term = data_x;
    s.residual = residual;
    s.scale = scale;
    on_iteration(s);
  };
  report(0);
  if (!(lipschitz > 0)) return x;  // Hᵀu = 0 (or H·Hᵀu = 0): α = 0
  double t = 1.0;
  for (int it = 1; it <= o.iterations; ++it) {
    // grad = Hᵀ(Hy − u) + μ_q·LᵀLy (half of ∇f(y)); at y = 0 (the first iteration) Hᵀ(Hy − u) = −Hᵀu.
    if (it == 1) {
      for (std::size_t i = 0; i < N; ++i) grad[i] = -htu[i];
    } else {
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < static_cast<std::int64_t>(M); ++i) hz[i] = hy[i] - u[i];
      H.adjoint(hz, grad);
    }
    add_penalty_normal(grid, mu_q, y, grad);
    for (int attempt = 0;; ++attempt) {
      const double s = 2.0 / lipschitz;
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < static_cast<std::int64_t>(N); ++i) step[i] = y[i] - s * grad[i];
      (void)tv_prox<double>(grid, step, {.weight = mu_tv / lipschitz, .iterations = o.tv_iterations,
                                         .nonnegative = o.nonnegative}, dual, z);
      H.forward(z, hz);
      // f(z) − f(y) − ⟨∇f(y), z − y⟩ = ‖H(z − y)‖² + μ_q·R(z − y), exactly (f is quadratic).
      for (std::size_t i = 0; i < N; ++i) d[i] = z[i] - y[i];
      const double dd = squared_distance(d, zero);
      const double curvature = squared_distance(hz, hy) + (mu_q != 0 ? mu_q * first_difference_penalty(grid, d) : 0.0);
      if (curvature <= 0.5 * lipschitz * dd * (1 + kStepSlack) || attempt == kMaxRetries) break;
      lipschitz = std::max(2.0 * lipschitz, 2.0 * curvature / dd);
      log_debug("oat PLS: iteration ", it, ": step bound raised to L_f = ", lipschitz);
    }
    double data_z = 0;
    const double f_z = objective(z, hz, data_z);
    residual = b_norm > 0 ? 0.5 * lipschitz * std::sqrt(squared_distance(z, y)) / b_norm : 0.0;
    const double t_next = 0.5 * (1.0 + std::sqrt(1.0 + 4.0 * t * t));
    x_prev.swap(x);
    hx_prev.swap(hx);
    if (f_z <= f_x) {  // MFISTA: α_k = z where it is no worse, else α_{k−1}
      x = z, hx = hz, f_x = f_z, data_x = data_z;
    } else {
      x = x_prev, hx = hx_prev;
    }
    // y = α_k + (t/t_next)(z − α_k) + ((t − 1)/t_next)(α_k − α_{k−1}), and Hy alike.
    combine(x, z, x_prev, t / t_next, (t - 1.0) / t_next, y);
    combine(hx, hz, hx_prev, t / t_next, (t - 1.0) / t_next, hy);
    t = t_next;
    report(it);
  }
  return x;
}

}  // namespace tomo::oat
