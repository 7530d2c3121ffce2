// libBNMR's SExpRlx as a native built-in (compute/musr/bmw/sexp_relaxation.hpp).
#include "compute/musr/bmw/sexp_relaxation.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "compute/musr/bmw/gauss_legendre.hpp"
#include "compute/musr/expression.hpp"
#include "compute/musr/user_fcn.hpp"

namespace tomo::musr {
namespace {

constexpr double kTau = 1.210;  // ⁸Li lifetime (s), the library's value

// ∫_a^b e^(−(u − a)/τ) e^(−(λu)^β) du. The stretched exponential has a cusp at u = 0 (β < 1):
// from 0 the interval is halved toward it 40 times (the integrand is 1 on what is left), and an
// interval that starts close to 0 is the difference of two such integrals from 0.
double piece(double a, double b, double lambda, double beta) {
  auto from_zero = [&](double end) {
    auto g = [&](double u) { return std::exp(-u / kTau - std::pow(lambda * u, beta)); };
    double sum = 0.0, hi = end;
    for (int k = 0; k < 40; ++k) {
      const double lo = 0.5 * hi;
      sum += gauss_legendre8(g, lo, hi);
      hi = lo;
    }
    return sum + hi;
  };
  if (a <= 0.0) return from_zero(b);
  if (a < b - a) return std::exp(a / kTau) * (from_zero(b) - from_zero(a));
  return gauss_legendre8([&](double u) { return std::exp(-(u - a) / kTau - std::pow(lambda * u, beta)); }, a, b);
}

// τ(1 − e^(−x/τ)), the normalisation of an implantation window of length x.
double window(double x) { return -kTau * std::expm1(-x / kTau); }

// The values on the grid t_i = i·Δ/N (Δ on node N) from the integrand's pieces over one step,
// p_k = ∫ over [t_k, t_{k+1}] of e^(−u/τ) e^(−(λu)^β): during the pulse f_i is the prefix sum
// over k < i, after it e^((t_i − Δ)/τ) times the sum over the window i − N ≤ k < i, taken as a
// difference of suffix sums (both of the window's magnitude, so nothing cancels at late times).
std::vector<double> aligned_values(double pulse, std::size_t steps, std::size_t n, double lambda, double beta) {
  const double dt = pulse / static_cast<double>(steps);
  std::vector<double> p(n, 0.0);
  for (std::size_t k = 0; k + 1 < n; ++k) {
    const double a = static_cast<double>(k) * dt;
    p[k] = std::exp(-a / kTau) * piece(a, a + dt, lambda, beta);
  }
  std::vector<double> v(n);
  v[0] = 1.0;  // the limit t → 0 (musrfit's formula is 0/0 there)
  double during = 0.0;
  for (std::size_t i = 1; i <= steps && i < n; ++i) {
    during += p[i - 1];
    v[i] = during / window(static_cast<double>(i) * dt);
  }
  // suffix[k] = Σ_{m ≥ k} p_m, compensated (Neumaier) so that the window's difference keeps its digits.
  std::vector<double> suffix(n + 1, 0.0);
  double sum = 0.0, carry = 0.0;
  for (std::size_t k = n; k-- > 0;) {
    const double y = sum + p[k];
    carry += std::fabs(sum) >= std::fabs(p[k]) ? (sum - y) + p[k] : (p[k] - y) + sum;
    sum = y;
    suffix[k] = sum + carry;
  }
  const double norm = window(pulse);
  for (std::size_t i = steps + 1; i < n; ++i)
    v[i] = std::exp(static_cast<double>(i - steps) * dt / kTau) * (suffix[i - steps] - suffix[i]) / norm;
  return v;
}

struct Grid {
  double dt;
  std::size_t n, steps;  // steps = 0: Δ lies off the grid (values computed one by one)
};

// Steps of at most 1 ms and 0.005/λ (the relaxation's own scale), Δ on a node, up to where the
// relaxation after the pulse is below e^(−28) or 20 s beyond it, at most kSexpMaxPoints nodes.
Grid grid_for(double pulse, double lambda, double beta) {
  double step = kSexpMaxStep, span = kSexpSpan;
  if (lambda > 0.0 && beta > 0.0) {
    step = std::min(step, 0.005 / lambda);
    span = std::min(span, std::pow(28.0, 1.0 / beta) / lambda);
  }
  const double cap = static_cast<double>(kSexpMaxPoints - 2);
  if (!(pulse > 0.0)) {
    const double n = std::min(cap, std::ceil(span / step)) + 2.0;
    return {span / (n - 2.0), static_cast<std::size_t>(n), 0};
  }
  double steps = std::max(1.0, std::ceil(pulse / step));
  if (std::floor((pulse + span) / (pulse / steps)) > cap) steps = std::floor(cap * pulse / (pulse + span));
  if (steps < 1.0) return {(pulse + span) / cap, kSexpMaxPoints, 0};
  const double dt = pulse / steps;
  return {dt, static_cast<std::size_t>(std::floor((pulse + span) / dt)) + 2, static_cast<std::size_t>(steps)};
}

std::vector<double> values_on(const Grid& g, double pulse, double lambda, double beta) {
  if (g.steps > 0) return aligned_values(pulse, g.steps, g.n, lambda, beta);
  std::vector<double> v(g.n);
  for (std::size_t i = 0; i < g.n; ++i) v[i] = sexp_relaxation(static_cast<double>(i) * g.dt, pulse, lambda, beta);
  return v;
}

}  // namespace

double sexp_relaxation(double t, double pulse, double lambda, double beta) {
  if (t < 0.0) return 0.0;
  if (!(pulse > 0.0)) return std::exp(-std::pow(lambda * t, beta));  // the limit Δ → 0
  if (t == 0.0) return 1.0;
  const bool during = t <= pulse;
  const double start = during ? 0.0 : t - pulse, length = during ? t : pulse;
  const auto m = static_cast<std::size_t>(std::max(1.0, std::ceil(length / kSexpMaxStep)));
  const double h = length / static_cast<double>(m);
  double s = 0.0;
  for (std::size_t k = 0; k < m; ++k) {
    const double a = start + static_cast<double>(k) * h;
    s += std::exp(-(a - start) / kTau) * piece(a, k + 1 == m ? start + length : a + h, lambda, beta);
  }
  return s / window(length);
}

KtTable sexp_relaxation_table(double pulse, double lambda, double beta, unsigned differences) {
  const Grid g = grid_for(pulse, lambda, beta);
  KtTable t;
  t.dt = g.dt;
  t.v = values_on(g, pulse, lambda, beta);
  t.differences = differences;
  if (differences == 0) return t;
  for (auto& d : t.dv) d.assign(g.n, 0.0);
  // ∂f/∂Δ in closed form: 0 during the pulse, after it
  // e^(−(λ(t − Δ))^β)/(τ(1 − e^(−Δ/τ))) − f·(1/τ + e^(−Δ/τ)/(τ(1 − e^(−Δ/τ)))).
  if ((differences & 1u) && pulse > 0.0) {
    const double norm = window(pulse), k = 1.0 / kTau + std::exp(-pulse / kTau) / norm;
    for (std::size_t i = 0; i < g.n; ++i) {
      const double x = static_cast<double>(i) * g.dt;
      if (x > pulse) t.dv[0][i] = std::exp(-std::pow(lambda * (x - pulse), beta)) / norm - t.v[i] * k;
    }
  }
  // ∂/∂λ, ∂/∂β: differences on the same grid (one-sided at λ = 0, where λ − h has no power).
  for (int j = 1; j < 3; ++j) {
    if (!(differences & (1u << j))) continue;
    const double a = j == 1 ? lambda : beta;
    const double h = 1e-5 * std::max(std::fabs(a), 1e-3);
    const double lo = (j == 1 && a - h < 0.0) ? a : a - h, hi = a + h;
    const auto up = values_on(g, pulse, j == 1 ? hi : lambda, j == 2 ? hi : beta);
    const auto dn = values_on(g, pulse, j == 1 ? lo : lambda, j == 2 ? lo : beta);
    for (std::size_t i = 0; i < g.n; ++i) t.dv[j][i] = (up[i] - dn[i]) / (hi - lo);
  }
  return t;
}

std::shared_ptr<const UserFunction> sexp_relaxation_function() {
  auto f = std::make_shared<UserFunction>();
  f->name = "SExpRlx";
  f->where = "built-in user function SExpRlx (libBNMR)";
  f->params = {"pulse", "lambda", "beta"};
  f->native = [](ProgramBuilder& b, std::span<const std::int32_t> args, std::int32_t t) {
    return b.table(static_cast<int>(TableKind::sexp_relaxation), t, args[0], args[1], args[2]);
  };
  return f;
}

}  // namespace tomo::musr
