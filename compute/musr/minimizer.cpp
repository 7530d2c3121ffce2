// MIGRAD-like minimisation with NLopt's L-BFGS (bounds; parameters scaled by their msr steps
// so that one unit is about one error), a Newton polish with the HESSE matrix, HESSE errors
// V = 2·Up·H⁻¹ and MINOS-style profile scans. NLopt: Debian's libnlopt, no Minuit2 in Debian 12.
// fit_commands.cpp runs an msr's COMMANDS block on these.
#include "compute/musr/minimizer.hpp"

#include <nlopt.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>

#include "compute/core/interrupt.hpp"
#include "compute/core/log.hpp"

namespace tomo::musr {
namespace {

// In-place inverse of a symmetric positive-definite n×n matrix (Cholesky); false if not SPD.
bool invert_spd(std::vector<double>& a, int n) {
  std::vector<double> L(static_cast<std::size_t>(n) * n, 0.0);
  for (int j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (int k = 0; k < j; ++k) d -= L[j * n + k] * L[j * n + k];
    if (!(d > 0.0)) return false;
    L[j * n + j] = std::sqrt(d);
    for (int i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (int k = 0; k < j; ++k) s -= L[i * n + k] * L[j * n + k];
      L[i * n + j] = s / L[j * n + j];
    }
  }
  // inv(L), then inv(A) = inv(L)ᵀ inv(L)
  std::vector<double> Li(static_cast<std::size_t>(n) * n, 0.0);
  for (int i = 0; i < n; ++i) {
    Li[i * n + i] = 1.0 / L[i * n + i];
    for (int j = 0; j < i; ++j) {
      double s = 0.0;
      for (int k = j; k < i; ++k) s -= L[i * n + k] * Li[k * n + j];
      Li[i * n + j] = s / L[i * n + i];
    }
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) {
      double s = 0.0;
      for (int k = i; k < n; ++k) s += Li[k * n + i] * Li[k * n + j];
      a[i * n + j] = a[j * n + i] = s;
    }
  return true;
}

struct Counted {
  Chi2Evaluator& ev;
  FitResult& r;
  std::vector<double> full() const {
    std::vector<double> p;
    for (const auto& s : r.params) p.push_back(s.value);
    return p;
  }
  double f(const std::vector<double>& p) {
    ++r.evaluations;
    return ev.evaluate(p);
  }
  double fg(const std::vector<double>& p, std::vector<double>& g) {
    ++r.evaluations;
    g.assign(p.size(), 0.0);
    return ev.evaluate_with_gradient(p, g);
  }
};

std::vector<int> free_indices(const FitResult& r, int except = -1) {
  std::vector<int> idx;
  for (int i = 0; i < static_cast<int>(r.params.size()); ++i)
    if (r.params[i].free && i != except) idx.push_back(i);
  return idx;
}

double scale_of(const FitParameterState& s) {
  if (s.error > 0.0) return s.error;
  if (s.step != 0.0) return std::fabs(s.step);
  return std::max(1e-3 * std::fabs(s.value), 1e-6);
}

struct NloptCtx {
  Counted* c;
  const std::vector<int>* idx;
  std::vector<double>* p;
  std::vector<double> x0, scale, g;
  nlopt_opt opt = nullptr;
  std::exception_ptr error;  // thrown by the evaluator inside the callback, rethrown after
};

double nlopt_objective(unsigned n, const double* x, double* grad, void* data) {
  auto* ctx = static_cast<NloptCtx*>(data);
  // No exception may cross NLopt's C frames: stop it, and throw after nlopt_optimize returns.
  if (interrupted()) {
    nlopt_force_stop(ctx->opt);
    return 0.0;
  }
  auto& p = *ctx->p;
  for (unsigned k = 0; k < n; ++k) p[(*ctx->idx)[k]] = ctx->x0[k] + x[k] * ctx->scale[k];
  double f = 0.0;
  try {
    if (grad) {
      f = ctx->c->fg(p, ctx->g);
      for (unsigned k = 0; k < n; ++k) grad[k] = ctx->g[(*ctx->idx)[k]] * ctx->scale[k];
    } else {
      f = ctx->c->f(p);
    }
  } catch (...) {
    ctx->error = std::current_exception();
    nlopt_force_stop(ctx->opt);
    return 0.0;
  }
  return std::isfinite(f) ? f : std::numeric_limits<double>::max();
}

// L-BFGS over the parameters idx starting from p (updated in place); returns the minimum.
double lbfgs(Counted& c, const std::vector<int>& idx, std::vector<double>& p, const FitResult& r) {
  const unsigned n = static_cast<unsigned>(idx.size());
  if (n == 0) return c.f(p);
  NloptCtx ctx{&c, &idx, &p, {}, {}, {}, nullptr, {}};
  std::vector<double> lb(n), ub(n), x(n, 0.0);
  for (unsigned k = 0; k < n; ++k) {
    const auto& s = r.params[idx[k]];
    ctx.x0.push_back(p[idx[k]]);
    ctx.scale.push_back(scale_of(s));
    lb[k] = s.lower ? (*s.lower - ctx.x0[k]) / ctx.scale[k] : -HUGE_VAL;
    ub[k] = s.upper ? (*s.upper - ctx.x0[k]) / ctx.scale[k] : HUGE_VAL;
    x[k] = std::clamp(0.0, lb[k], ub[k]);
  }
  nlopt_opt opt = nlopt_create(NLOPT_LD_LBFGS, n);
  ctx.opt = opt;
  nlopt_set_lower_bounds(opt, lb.data());
  nlopt_set_upper_bounds(opt, ub.data());
  nlopt_set_min_objective(opt, nlopt_objective, &ctx);
  nlopt_set_ftol_rel(opt, 1e-15);
  nlopt_set_xtol_rel(opt, 1e-12);
  nlopt_set_maxeval(opt, 20000);
  double f = 0.0;
  const nlopt_result res = nlopt_optimize(opt, x.data(), &f);
  nlopt_destroy(opt);
  if (ctx.error) std::rethrow_exception(ctx.error);
  throw_if_interrupted();
  for (unsigned k = 0; k < n; ++k) p[idx[k]] = ctx.x0[k] + x[k] * ctx.scale[k];
  (void)res;  // roundoff-limited ends are normal at a minimum; convergence is judged by EDM
  return c.f(p);
}

// Hessian of f over idx at p by central differences of the analytic gradient; steps h.
std::vector<double> hessian(Counted& c, const std::vector<int>& idx, const std::vector<double>& p, const std::vector<double>& h) {
  const int n = static_cast<int>(idx.size());
  std::vector<double> H(static_cast<std::size_t>(n) * n), gp, gm;
  for (int i = 0; i < n; ++i) {
    auto pp = p, pm = p;
    pp[idx[i]] += h[i];
    pm[idx[i]] -= h[i];
    c.fg(pp, gp);
    c.fg(pm, gm);
    for (int j = 0; j < n; ++j) H[i * n + j] = (gp[idx[j]] - gm[idx[j]]) / (2 * h[i]);
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < i; ++j) H[i * n + j] = H[j * n + i] = 0.5 * (H[i * n + j] + H[j * n + i]);
  return H;
}

// Covariance V = 2·Up·H⁻¹ over idx (two passes: steps from the msr, then 2% of the errors).
bool covariance(Counted& c, const FitResult& r, const std::vector<int>& idx, const std::vector<double>& p,
                std::vector<double>& V) {
  const int n = static_cast<int>(idx.size());
  std::vector<double> h(n);
  // Steps of 2 % of an error make central differences of the analytic gradient exact to
  // ~1e-4 relative. Errors known from an earlier HESSE: one pass; else a first pass with
  // 1e-3 of the msr step to find them.
  bool known = true;
  for (int i = 0; i < n; ++i) {
    const auto& s = r.params[idx[i]];
    known = known && s.error > 0.0;
    h[i] = s.error > 0.0 ? 0.02 * s.error : 1e-3 * scale_of(s);
  }
  for (int pass = known ? 1 : 0; pass < 2; ++pass) {
    V = hessian(c, idx, p, h);
    for (int i = 0; i < n; ++i) {
      if (!(V[i * n + i] > 0.0)) return false;
      h[i] = 0.02 * std::sqrt(2.0 * r.up / V[i * n + i]);
    }
  }
  if (!invert_spd(V, n)) return false;
  for (auto& v : V) v *= 2.0 * r.up;
  return true;
}

// Whether parameter s at value v is held at one of its bounds by the gradient g (the minimum
// lies beyond the bound): at a lower bound with g > 0 or an upper bound with g < 0.
bool held_at_bound(const FitParameterState& s, double v, double g) {
  const double tol = 1e-9 * scale_of(s);
  return (s.lower && v <= *s.lower + tol && g > 0.0) || (s.upper && v >= *s.upper - tol && g < 0.0);
}

// EDM = ½ gᵀH⁻¹g over the free parameters not held at a bound. MINUIT fits bounded parameters
// through a sine transform whose derivative vanishes at the bound, so a parameter resting there
// adds nothing to its EDM; counting its (outward) gradient would call every fit whose minimum
// lies on a bound unconverged. V = 2·Up·H⁻¹ over idx.
double edm_within_bounds(const FitResult& r, const std::vector<int>& idx, const std::vector<double>& p,
                         const std::vector<double>& g, const std::vector<double>& V) {
  const int n = static_cast<int>(idx.size());
  std::vector<int> in;  // positions in idx of the parameters off their bounds
  for (int i = 0; i < n; ++i)
    if (!held_at_bound(r.params[idx[i]], p[idx[i]], g[idx[i]])) in.push_back(i);
  double edm = 0.0;
  if (static_cast<int>(in.size()) == n) {
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) edm += g[idx[i]] * V[i * n + j] * g[idx[j]];
    return edm / (4.0 * r.up);  // H⁻¹ = V/(2·Up)
  }
  // The inverse of the Hessian's block of the parameters off their bounds: H = 2·Up·V⁻¹.
  std::vector<double> H = V;
  if (!invert_spd(H, n)) return HUGE_VAL;
  const int m = static_cast<int>(in.size());
  std::vector<double> Hm(static_cast<std::size_t>(m) * m);
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < m; ++b) Hm[a * m + b] = 2.0 * r.up * H[in[a] * n + in[b]];
  if (!invert_spd(Hm, m)) return HUGE_VAL;
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < m; ++b) edm += g[idx[in[a]]] * Hm[a * m + b] * g[idx[in[b]]];
  return 0.5 * edm;
}

}  // namespace

int FitResult::free_count() const {
  return static_cast<int>(std::count_if(params.begin(), params.end(), [](const auto& p) { return p.free; }));
}

void hesse(Chi2Evaluator& ev, FitResult& r) {
  Counted c{ev, r};
  const auto idx = free_indices(r);
  const auto p = c.full();
  if (r.hesse_ok && p == r.hesse_point && idx == r.hesse_free) return;  // same point, same free set
  std::vector<double> V;
  r.hesse_ok = covariance(c, r, idx, p, V);
  const int n = static_cast<int>(idx.size());
  r.covariance.assign(n, std::vector<double>(n, 0.0));
  if (!r.hesse_ok) return;
  for (int i = 0; i < n; ++i) {
    r.params[idx[i]].error = std::sqrt(V[i * n + i]);
    for (int j = 0; j < n; ++j) r.covariance[i][j] = V[i * n + j];
  }
  std::vector<double> g;
  c.fg(p, g);
  r.edm = edm_within_bounds(r, idx, p, g, V);
  r.hesse_point = p;
  r.hesse_free = idx;
}

void migrad(Chi2Evaluator& ev, FitResult& r) {
  Counted c{ev, r};
  const auto idx = free_indices(r);
  auto p = c.full();
  double f = lbfgs(c, idx, p, r);
  // Newton polish with the HESSE matrix: L-BFGS stops within ~1e-3 of an error, MINUIT-grade
  // agreement (1e-3 of an error) needs the last quadratic step.
  for (int it = 0; it < 3 && !idx.empty(); ++it) {
    std::vector<double> V;
    if (!covariance(c, r, idx, p, V)) break;
    const int n = static_cast<int>(idx.size());
    for (int i = 0; i < n; ++i) r.params[idx[i]].error = std::sqrt(V[i * n + i]);  // next pass: one sweep
    std::vector<double> g;
    c.fg(p, g);
    auto q = p;
    for (int i = 0; i < n; ++i) {
      double d = 0.0;
      for (int j = 0; j < n; ++j) d -= V[i * n + j] * g[idx[j]] / (2.0 * r.up);
      const auto& s = r.params[idx[i]];
      q[idx[i]] = std::clamp(p[idx[i]] + d, s.lower.value_or(-HUGE_VAL), s.upper.value_or(HUGE_VAL));
    }
    const double fq = c.f(q);
    if (!(fq < f)) break;
    const bool small = f - fq < 1e-9 * r.up;
    p = q;
    f = fq;
    if (small) break;
  }
  for (std::size_t i = 0; i < p.size(); ++i) r.params[i].value = p[i];
  r.fmin = f;
  hesse(ev, r);
  // MINUIT's criterion with tolerance 0.1: EDM < 0.002·tol·Up.
  r.converged = r.hesse_ok && r.edm < 2e-4 * r.up;
}

void minos(Chi2Evaluator& ev, FitResult& r) {
  Counted c{ev, r};
  if (!r.hesse_ok) hesse(ev, r);
  // Without a positive-definite HESSE matrix there is no minimum to measure Δf = Up from (MINUIT's
  // MINOS refuses an invalid minimum too): its profile fits would wander over the same flat or
  // stepped χ² that stopped HESSE, for minutes, and give nothing meaningful.
  if (!r.hesse_ok) {
    log_warn("musr: MINOS skipped: the minimum is not valid (HESSE found no positive-definite matrix)");
    return;
  }
  const auto idx = free_indices(r);
  const auto best = c.full();
  const int n = static_cast<int>(idx.size());
  for (int k = 0; k < n; ++k) {
    const int i = idx[k];
    auto& s = r.params[i];
    const auto others = free_indices(r, i);
    for (int side : {-1, +1}) {
      double delta = s.error > 0 ? s.error : scale_of(s);
      double found = delta;
      for (int it = 0; it < 8; ++it) {
        auto p = best;
        const double target = best[i] + side * delta;
        p[i] = std::clamp(target, s.lower.value_or(-HUGE_VAL), s.upper.value_or(HUGE_VAL));
        // Warm start along the correlation: p_j += V_ji/V_ii · shift.
        for (int j = 0; j < n && r.hesse_ok; ++j)
          if (j != k) p[idx[j]] += r.covariance[j][k] / r.covariance[k][k] * (p[i] - best[i]);
        for (int j : others) {
          const auto& sj = r.params[j];
          p[j] = std::clamp(p[j], sj.lower.value_or(-HUGE_VAL), sj.upper.value_or(HUGE_VAL));
        }
        const double fp = lbfgs(c, others, p, r);
        const double rise = fp - r.fmin;
        found = std::fabs(p[i] - best[i]);
        if (p[i] != target || !(rise > 0.0)) break;  // at a bound, or no rise: keep what we have
        if (std::fabs(rise - r.up) < 1e-4 * r.up) break;
        delta = found * std::sqrt(r.up / rise);  // parabolic step towards Δf = Up
      }
      (side < 0 ? s.minos_minus : s.minos_plus) = side * found;
    }
  }
}

}  // namespace tomo::musr
