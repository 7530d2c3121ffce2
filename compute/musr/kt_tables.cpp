// musrfit's sampled LF Kubo–Toyabe integrals and Volterra solutions (compute/musr/kt_tables.hpp):
// the same grids, trapezoid rules and stopping tests, so that fits agree with musrfit's to its
// own discretisation (about 1e-4 absolute against the exact functions, docs/musr.md).
#include "compute/musr/kt_tables.hpp"

#include <algorithm>
#include <cmath>
#include <list>
#include <mutex>
#include <tuple>

#include "compute/musr/bmw/depth_profile.hpp"
#include "compute/musr/bmw/gap_integrals.hpp"
#include "compute/musr/bmw/sexp_relaxation.hpp"
#include "compute/musr/bmw/tri_vortex_ml.hpp"
#include "compute/musr/expression.hpp"

namespace tomo::musr {

double kt_lookup(const std::vector<double>& v, double dt, double x) {
  if (v.empty()) return 0.0;
  if (x < 0.0) return 0.0;
  const double q = x / dt;
  if (!(q < static_cast<double>(v.size() - 1))) return v.back();
  const auto i = static_cast<std::size_t>(q);
  return v[i] + (v[i + 1] - v[i]) * (q - static_cast<double>(i));
}

double kt_slope(const std::vector<double>& v, double dt, double x) {
  if (v.empty() || x < 0.0) return 0.0;
  const double q = x / dt;
  if (!(q < static_cast<double>(v.size() - 1))) return 0.0;
  const auto i = static_cast<std::size_t>(q);
  return (v[i + 1] - v[i]) / dt;
}

namespace {

constexpr double kTwoPi = 2.0 * kPi;
constexpr double kTmax = 20.0;  // µs: musrfit's table length

// musrfit's step of the static LF integral: 1 ns, finer for fast precession or fast damping.
double lf_step(double nu0, double rate) {
  const double w0 = kTwoPi * nu0;
  double dt = 0.001;
  if (rate <= w0 && 1.0 / nu0 < 20.0) {
    if (1.0 / nu0 / 20.0 < 0.001) dt = 1.0 / nu0 / 20.0;  // 20 points a period
  } else if (rate > w0 && rate <= 10.0) {
    if (rate / w0 > 10.0) dt = 0.00005;
  } else if (rate > w0 && rate > 10.0) {
    if (1.0 / rate / 3000.0 < 0.001) dt = 1.0 / rate / 3000.0;  // 3000 points on the decay
  }
  return dt;
}

// Whether the static LF functions use their integral (else musrfit's zero-field formula).
bool gauss_uses_integral(double nu0, double delta) { return !(nu0 < 0.02) && !(delta / nu0 > 79.5775); }
bool lorentz_uses_integral(double nu0, double a) { return !(nu0 < 0.02) && !(a / nu0 > 159.1549); }

// sin(x)/x, and (sin x − x cos x)/x² (spherical Bessel j0, j1) with musrfit's small-x limits.
void spherical_j(double x, double& j0, double& j1) {
  if (std::fabs(x) < 0.001) {
    j0 = 1.0, j1 = 0.0;
    return;
  }
  j0 = std::sin(x) / x;
  j1 = (std::sin(x) - x * std::cos(x)) / (x * x);
}

}  // namespace

KtTable lf_integral(TableKind kind, double nu0, double rate) {
  KtTable out;
  out.v.push_back(0.0);
  const bool gauss = kind == TableKind::gauss_lf_integral || kind == TableKind::dyn_gauss_lf;
  if (!(gauss ? gauss_uses_integral(nu0, rate) : lorentz_uses_integral(nu0, rate))) return out;
  const double w0 = kTwoPi * nu0, dt = lf_step(nu0, rate);
  out.dt = dt;
  // The integrand at τ; the Lorentzian's sin(ω₀τ)/(ω₀τ) is 1 at τ = 0.
  const double pre = gauss ? 2.0 * std::pow(rate, 4.0) / std::pow(w0, 3.0) : rate * (1.0 + std::pow(rate / w0, 2.0));
  auto f = [&](double tau) {
    if (gauss) return pre * std::exp(-0.5 * std::pow(rate * tau, 2.0)) * std::sin(w0 * tau);
    return tau == 0.0 ? pre : pre * std::sin(w0 * tau) / (w0 * tau) * std::exp(-rate * tau);
  };
  // Trapezoids until 20 µs or until a step changes |F| by no more than 1e-10 (musrfit's test;
  // the Lorentzian's first step is not tested).
  double F = 0.0, last = 1.0;
  for (std::size_t i = 1; out.v.size() < kMaxLfIntegralPoints; ++i) {
    const double t = static_cast<double>(i) * dt;
    F += 0.5 * dt * (f(t - dt) + f(t));
    out.v.push_back(F);
    if (!gauss && i == 1) continue;
    const double diff = std::fabs(std::fabs(last) - std::fabs(F));
    last = F;
    if (!(t <= kTmax) || !(diff > 1e-10)) break;
  }
  return out;
}

KtTable dynamic_kt_lf(TableKind kind, double nu0, double rate, double hop) {
  const bool gauss = kind == TableKind::dyn_gauss_lf;
  rate = std::fabs(rate);
  hop = std::fabs(hop);
  // 16 points a Larmor period, 25 on the static function's first minimum, at least 300.
  double n = nu0 > 0.0 ? std::floor(16.0 * kTmax * nu0) : 0.0;
  if (rate > 0.1) {
    const double tmin = gauss ? std::sqrt(3.0) / rate : 2.0 / rate;
    n = std::max(n, std::floor(25.0 * kTmax / tmin));
  }
  n = std::clamp(n, 300.0, static_cast<double>(kMaxVolterraPoints));
  const auto N = static_cast<std::size_t>(n);
  const KtTable lf = lf_integral(gauss ? TableKind::gauss_lf_integral : TableKind::lorentz_lf_integral, nu0, rate);
  const bool integral = gauss ? gauss_uses_integral(nu0, rate) : lorentz_uses_integral(nu0, rate);
  const double w0 = kTwoPi * nu0, dt = kTmax / n;
  // The static LF function times e^(−νt) on the grid.
  std::vector<double> p(N);
  for (std::size_t i = 0; i < N; ++i) {
    const double t = static_cast<double>(i) * dt;
    double g;
    if (gauss) {
      const double s2 = t * t * rate * rate;
      g = !integral ? (1.0 + 2.0 * (1.0 - s2) * std::exp(-0.5 * s2)) / 3.0
                    : 1.0 - 2.0 * std::pow(rate / w0, 2.0) * (1.0 - std::exp(-0.5 * s2) * std::cos(w0 * t)) +
                          kt_lookup(lf.v, lf.dt, t);
    } else {
      const double at = rate * t;
      if (!integral) {
        g = (1.0 + 2.0 * (1.0 - at) * std::exp(-at)) / 3.0;
      } else {
        double j0 = 1.0, j1 = 0.0;
        spherical_j(w0 * t, j0, j1);
        const double r = rate / w0;
        g = 1.0 - r * j1 * std::exp(-at) - r * r * (j0 * std::exp(-at) - 1.0) - kt_lookup(lf.v, lf.dt, t);
      }
    }
    p[i] = g * std::exp(-hop * t);
  }
  // G(t) = p(t) + ν∫₀ᵗ p(t − s) G(s) ds by trapezoids (strong collisions at rate ν).
  KtTable out;
  out.dt = dt;
  out.v.assign(N, 0.0);
  out.v[0] = p[0];
  const double h = dt * hop, denom = 1.0 - 0.5 * h * p[0];
  for (std::size_t i = 1; i < N; ++i) {
    double conv = 0.0;
    for (std::size_t j = 1; j < i; ++j) conv += p[i - j] * out.v[j];
    out.v[i] = (p[i] + 0.5 * h * p[i] * out.v[0] + h * conv) / denom;
  }
  return out;
}

namespace {

KtTable build(TableKind kind, double a0, double a1, double a2) {
  if (kind == TableKind::gauss_lf_integral || kind == TableKind::lorentz_lf_integral) return lf_integral(kind, a0, a1);
  return dynamic_kt_lf(kind, a0, a1, a2);
}

// Central differences of the table with respect to the arguments in `which`, on the table's grid.
void differentiate(TableKind kind, const double (&a)[3], unsigned which, KtTable& t) {
  const int args = (kind == TableKind::gauss_lf_integral || kind == TableKind::lorentz_lf_integral) ? 2 : 3;
  t.differences = which;
  for (int j = 0; j < 3; ++j) {
    t.dv[j].assign(t.v.size(), 0.0);
    if (j >= args || !(which & (1u << j))) continue;
    const double h = 1e-5 * std::max(std::fabs(a[j]), 1e-3);
    double up[3] = {a[0], a[1], a[2]}, dn[3] = {a[0], a[1], a[2]};
    up[j] += h, dn[j] -= h;
    const KtTable tu = build(kind, up[0], up[1], up[2]), td = build(kind, dn[0], dn[1], dn[2]);
    for (std::size_t i = 0; i < t.v.size(); ++i) {
      const double x = static_cast<double>(i) * t.dt;
      t.dv[j][i] = (kt_lookup(tu.v, tu.dt, x) - kt_lookup(td.v, td.dt, x)) / (2.0 * h);
    }
  }
}

struct CacheEntry {
  std::tuple<int, double, double, double> key;
  std::shared_ptr<const KtTable> table;
};

}  // namespace

std::shared_ptr<const KtTable> kt_table(TableKind kind, double a0, double a1, double a2, unsigned differences) {
  // A few recent tables: a fit's runs share their parameter sets, and a gradient call follows
  // the value call at the same point. Built under the lock, so concurrent callers build once.
  static std::mutex mutex;
  static std::list<CacheEntry> cache;
  constexpr std::size_t kEntries = 32;
  const auto key = std::make_tuple(static_cast<int>(kind), a0, a1, a2);
  std::lock_guard lock(mutex);
  for (auto it = cache.begin(); it != cache.end(); ++it) {
    if (it->key != key || (differences & ~it->table->differences) != 0) continue;
    cache.splice(cache.begin(), cache, it);
    return cache.front().table;
  }
  std::shared_ptr<KtTable> t;
  if (kind == TableKind::depth_fraction) {
    t = std::make_shared<KtTable>(depth_fraction_table(a0, a1, a2, differences));
  } else if (kind == TableKind::sexp_relaxation) {
    t = std::make_shared<KtTable>(sexp_relaxation_table(a0, a1, a2, differences));
  } else if (kind == TableKind::gap_integral) {
    t = std::make_shared<KtTable>(gap_integral_table(a0, a1, a2, differences));
  } else if (kind >= TableKind::vortex_lattice) {
    t = std::make_shared<KtTable>(bmw::vortex_kind_table(static_cast<int>(kind), a0, a1, a2, differences));
  } else {
    t = std::make_shared<KtTable>(build(kind, a0, a1, a2));
    if (differences != 0) differentiate(kind, {a0, a1, a2}, differences, *t);
  }
  cache.push_front({key, t});
  if (cache.size() > kEntries) cache.pop_back();
  return t;
}

}  // namespace tomo::musr
