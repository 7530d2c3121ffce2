// Linear CG on the PLS normal equations (quadratic penalty, no bound); Hα is carried along
// (α += a·p, Hα += a·Hp) so the objective of every iterate costs no extra H. TV or the bound go
// to run_pls_fista.
#include "compute/oat/pls.hpp"

#include <cmath>
#include <cstdint>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::oat {

namespace {
double dot(std::span<const double> a, std::span<const double> b) {
  double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(a.size()); ++i) s += a[i] * b[i];
  return s;
}
}  // namespace

double first_difference_penalty(const Grid3& g, std::span<const double> a) {
  const int nx = g.dims[0], ny = g.dims[1], nz = g.dims[2];
  double r = 0;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const double v = a[g.index(i, j, k)];
        if (i > 0) r += (v - a[g.index(i - 1, j, k)]) * (v - a[g.index(i - 1, j, k)]);
        if (j > 0) r += (v - a[g.index(i, j - 1, k)]) * (v - a[g.index(i, j - 1, k)]);
        if (k > 0) r += (v - a[g.index(i, j, k - 1)]) * (v - a[g.index(i, j, k - 1)]);
      }
  return r;
}

void add_penalty_normal(const Grid3& g, double mu, std::span<const double> a, std::span<double> out) {
  if (mu == 0) return;
  const int nx = g.dims[0], ny = g.dims[1], nz = g.dims[2];
#pragma omp parallel for schedule(static)
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        // (LᵀLα)_n = Σ over the neighbours m of n of (α_n − α_m).
        const double v = a[g.index(i, j, k)];
        double s = 0;
        if (i > 0) s += v - a[g.index(i - 1, j, k)];
        if (i + 1 < nx) s += v - a[g.index(i + 1, j, k)];
        if (j > 0) s += v - a[g.index(i, j - 1, k)];
        if (j + 1 < ny) s += v - a[g.index(i, j + 1, k)];
        if (k > 0) s += v - a[g.index(i, j, k - 1)];
        if (k + 1 < nz) s += v - a[g.index(i, j, k + 1)];
        out[g.index(i, j, k)] += mu * s;
      }
}

std::vector<double> run_pls(Model& H, const Grid3& grid, std::span<const double> u, const PlsOptions& o,
                            const std::function<void(const PlsIteration&)>& on_iteration) {
  const std::size_t N = grid.count(), M = u.size();
  std::vector<double> r(N), hb;
  H.adjoint(u, r);  // b = Hᵀu: CG's first residual (α = 0), FISTA's first gradient
  const PlsScale scale = pls_scale(H, u, r, hb);
  if (o.regulariser == Regulariser::tv || o.nonnegative) return run_pls_fista(H, grid, u, r, o, scale, on_iteration);
  const double mu = o.mu * scale.lambda;  // the penalty's weight in the normal equations
  std::vector<double> alpha(N, 0.0), h_alpha(M, 0.0), p(N), ap(N), hp(M);
  const double b_norm = std::sqrt(dot(r, r));
  p = r;
  double rr = dot(r, r);
  auto report = [&](int it) {
    if (!on_iteration) return;
    PlsIteration s;
    s.iteration = it;
    s.scale = scale;
    double data = 0;  // Q·K terms (12.8 M on the paper scene): threaded as dot()
#pragma omp parallel for reduction(+ : data) schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(M); ++i) data += (u[i] - h_alpha[i]) * (u[i] - h_alpha[i]);
    s.data_term = data;
    s.objective = data + (mu != 0 ? mu * first_difference_penalty(grid, alpha) : 0.0);
    s.residual = b_norm > 0 ? std::sqrt(rr) / b_norm : 0.0;
    on_iteration(s);
  };
  report(0);
  for (int it = 1; it <= o.iterations && rr > 0; ++it) {
    if (it == 1)
      hp.swap(hb);  // p = b: pls_scale's H·b
    else
      H.forward(p, hp);
    H.adjoint(hp, ap);
    add_penalty_normal(grid, mu, p, ap);
    const double pap = dot(p, ap);
    if (!(pap > 0)) {
      log_warn("oat PLS: pᵀAp = ", pap, " at iteration ", it, ": stopped (the normal matrix is singular there)");
      break;
    }
    const double a = rr / pap;
    // Element by element, so threads give the same bits as one.
    const auto n = static_cast<std::int64_t>(N), m = static_cast<std::int64_t>(M);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) alpha[i] += a * p[i], r[i] -= a * ap[i];
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < m; ++i) h_alpha[i] += a * hp[i];
    const double rr_new = dot(r, r);
    const double beta = rr_new / rr;
    rr = rr_new;
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) p[i] = r[i] + beta * p[i];
    report(it);
  }
  return alpha;
}

}  // namespace tomo::oat
