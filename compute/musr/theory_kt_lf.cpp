// musrfit's longitudinal-field Kubo–Toyabe functions [Suter2012]: the analytic parts as program
// nodes, the integrals and the Volterra solutions as `table` nodes (compute/musr/kt_tables.hpp),
// with musrfit's branch rules (zero-field formula at small field or large width; Keren's
// fast-fluctuation formula; the BMW approximation of the dynamic Lorentzian) as selects on the
// parameters. ν₀ is in MHz (ω₀ = 2πν₀), the rates in 1/µs.
#include "compute/core/error.hpp"
#include "compute/musr/kt_tables.hpp"
#include "compute/musr/theory_builders.hpp"

namespace tomo::musr {
namespace {

std::int32_t lit(ProgramBuilder& b, double v) { return b.constant(v); }

// 1 where every argument is 0 (musrfit's first test), else `body`.
std::int32_t unless_all_zero(ProgramBuilder& b, std::span<const std::int32_t> args, std::int32_t body) {
  std::int32_t sum = lit(b, 0.0);
  for (auto x : args) sum = b.add(sum, b.mul(x, x));
  return b.select(b.unary(OpCode::neg, sum), lit(b, 1.0), body);
}

// c₀ + c₁y + c₂y² + … by Horner's rule.
std::int32_t horner(ProgramBuilder& b, std::int32_t y, std::span<const double> c) {
  std::int32_t sum = lit(b, c.back());
  for (std::size_t k = c.size() - 1; k-- > 0;) sum = b.add(b.mul(sum, y), lit(b, c[k]));
  return sum;
}

// Spherical Bessel j0(x) = sin x/x and j1(x) = (sin x − x cos x)/x², 1 and 0 where |x| < 0.001
// (musrfit's rule). Below |x| = 1 both are their Taylor series (truncated below 1e-18): there
// the quotients cancel, j1's to ~x³/3, so that their rounding error (and any absolute error of
// a driver's float sin and cos, which GLSL leaves up to 2^-11) grows like 1/x² relative to j1.
void spherical_j(ProgramBuilder& b, std::int32_t x, std::int32_t& j0, std::int32_t& j1) {
  // j0 = Σ (−1)ᵏ x²ᵏ/(2k+1)!, j1 = x Σ (−1)ᵏ (2k+2) x²ᵏ/(2k+3)!, k = 0…8.
  double c0[9], c1[9];
  double fact = 1.0;  // (2k+1)!
  for (int k = 0; k < 9; ++k) {
    if (k > 0) fact *= (2.0 * k) * (2.0 * k + 1.0);
    const double sign = k % 2 == 0 ? 1.0 : -1.0;
    c0[k] = sign / fact;
    c1[k] = sign * (2.0 * k + 2.0) / (fact * (2.0 * k + 2.0) * (2.0 * k + 3.0));
  }
  auto x2 = b.mul(x, x);
  auto s = b.unary(OpCode::sin, x), c = b.unary(OpCode::cos, x);
  auto ax = abs_of(b, x);
  auto tiny = b.sub(ax, lit(b, 0.001)), large = b.sub(ax, lit(b, 1.0));
  auto j0_series = horner(b, x2, c0), j1_series = b.mul(x, horner(b, x2, c1));
  j0 = b.select(tiny, b.select(large, b.div(s, x), j0_series), lit(b, 1.0));
  j1 = b.select(tiny, b.select(large, b.div(b.sub(s, b.mul(x, c)), x2), j1_series), lit(b, 0.0));
}

// Static Gaussian KT in field: 1 − 2(Δ/ω₀)²(1 − e^(−Δ²t²/2)cos ω₀t) + I_G(t); ZF formula where
// ν₀ < 0.02 MHz or Δ/ν₀ > 79.5775.
std::int32_t static_gauss_lf(ProgramBuilder& b, std::int32_t nu0, std::int32_t delta, std::int32_t tt) {
  auto st = b.mul(delta, tt);
  auto s2 = b.mul(st, st);
  auto zf = kt_shape(b, s2, b.mul(lit(b, 0.5), s2));
  auto w0 = b.mul(lit(b, 2.0 * kPi), nu0);
  auto r = b.div(delta, w0);
  auto osc = b.mul(exp_neg(b, b.mul(lit(b, 0.5), s2)), b.unary(OpCode::cos, b.mul(w0, tt)));
  auto integral = b.table(static_cast<int>(TableKind::gauss_lf_integral), tt, nu0, delta, lit(b, 0.0));
  auto lf = b.add(b.sub(lit(b, 1.0), b.mul(b.mul(lit(b, 2.0), b.mul(r, r)), b.sub(lit(b, 1.0), osc))), integral);
  auto wide = b.sub(lit(b, 79.5775), b.div(delta, nu0));
  return b.select(b.sub(nu0, lit(b, 0.02)), b.select(wide, lf, zf), zf);
}

// Static Lorentzian KT in field: 1 − (a/ω₀)j1(ω₀t)e^(−at) − (a/ω₀)²(j0(ω₀t)e^(−at) − 1) − I_L(t);
// ZF formula where ν₀ < 0.02 MHz or a/ν₀ > 159.1549.
std::int32_t static_lorentz_lf(ProgramBuilder& b, std::int32_t nu0, std::int32_t a, std::int32_t tt) {
  auto at = b.mul(a, tt);
  auto zf = kt_shape(b, at, at);
  auto w0 = b.mul(lit(b, 2.0 * kPi), nu0);
  auto r = b.div(a, w0);
  std::int32_t j0 = -1, j1 = -1;
  spherical_j(b, b.mul(w0, tt), j0, j1);
  auto e = exp_neg(b, at);
  auto integral = b.table(static_cast<int>(TableKind::lorentz_lf_integral), tt, nu0, a, lit(b, 0.0));
  auto lf = b.sub(b.sub(b.sub(lit(b, 1.0), b.mul(b.mul(r, j1), e)), b.mul(b.mul(r, r), b.sub(b.mul(j0, e), lit(b, 1.0)))),
                  integral);
  auto wide = b.sub(lit(b, 159.1549), b.div(a, nu0));
  return b.select(b.sub(nu0, lit(b, 0.02)), b.select(wide, lf, zf), zf);
}

// Keren's dynamic Gaussian relaxation in field (ν/Δ > 5): e^(−Γ(t)) with
// Γ = 2Δ²/(ω²+ν²)²·[(ω²+ν²)νt + (ω²−ν²)(1 − e^(−νt)cos ωt) − 2νω e^(−νt) sin ωt].
std::int32_t keren(ProgramBuilder& b, std::int32_t nu0, std::int32_t delta, std::int32_t nu, std::int32_t t) {
  auto wl = b.mul(lit(b, 2.0 * kPi), nu0);
  auto wl2 = b.mul(wl, wl), nu2 = b.mul(nu, nu);
  auto sum = b.add(wl2, nu2);
  auto e = exp_neg(b, b.mul(nu, t));
  auto wt = b.mul(wl, t);
  auto bracket = b.add(b.mul(b.mul(sum, nu), t), b.mul(b.sub(wl2, nu2), b.sub(lit(b, 1.0), b.mul(e, b.unary(OpCode::cos, wt)))));
  bracket = b.sub(bracket, b.mul(b.mul(b.mul(lit(b, 2.0), nu), wl), b.mul(e, b.unary(OpCode::sin, wt))));
  auto gamma = b.mul(b.div(b.mul(lit(b, 2.0), b.mul(delta, delta)), b.mul(sum, sum)), bracket);
  return exp_neg(b, gamma);
}

// BMW's approximation of the dynamic Lorentzian KT in field (ν > 5a or ω₀ ≥ 30a):
// exp(−(4/3)a[b₁(1 − j0 e^(−νt)) + b₂ j1 e^(−νt) + (1 − b₂ω₀/3 − b₁ν)t]) with b₁, b₂ rational in ω₀, ν.
std::int32_t bmw(ProgramBuilder& b, std::int32_t nu0, std::int32_t a, std::int32_t nu, std::int32_t tt) {
  constexpr double c[7] = {1.15331, 1.64826, -0.71763, 3.0, 0.386683, -5.01876, 2.41854};
  constexpr double d[4] = {2.44056, 2.92063, 1.69581, 0.667277};
  auto w = b.mul(lit(b, 2.0 * kPi), nu0);
  auto w2 = b.mul(w, w), w3 = b.mul(w2, w), w4 = b.mul(w3, w);
  auto n2 = b.mul(nu, nu), n3 = b.mul(n2, nu), n4 = b.mul(n3, nu);
  auto term = [&](double k, std::int32_t x, std::int32_t y) { return b.mul(lit(b, k), b.mul(x, y)); };
  auto denom = b.add(b.add(b.add(b.add(w4, term(d[0], w3, nu)), term(d[1], w2, n2)), term(d[2], w, n3)), b.mul(lit(b, d[3]), n4));
  auto b1 = b.div(b.add(b.add(b.mul(lit(b, c[0]), w3), term(c[1], w2, nu)), term(c[2], w, n2)), denom);
  auto b2 = b.div(b.add(b.add(b.add(b.mul(lit(b, c[3]), w3), term(c[4], w2, nu)), term(c[5], w, n2)), b.mul(lit(b, c[6]), n3)), denom);
  std::int32_t j0 = -1, j1 = -1;
  spherical_j(b, b.mul(w, tt), j0, j1);
  auto e = exp_neg(b, b.mul(nu, tt));
  auto lin = b.sub(b.sub(lit(b, 1.0), b.div(b.mul(b2, w), lit(b, 3.0))), b.mul(b1, nu));
  auto inner = b.add(b.add(b.mul(b1, b.sub(lit(b, 1.0), b.mul(j0, e))), b.mul(b.mul(b2, j1), e)), b.mul(lin, tt));
  return exp_neg(b, b.mul(b.mul(lit(b, 4.0 / 3.0), a), inner));
}

}  // namespace

std::int32_t build_kt_lf(ProgramBuilder& b, TheoryFn fn, std::span<const std::int32_t> a, std::int32_t tt, std::int32_t t) {
  auto one = lit(b, 1.0);
  switch (fn) {
    case TheoryFn::stat_gss_kt_lf:  // (frequency damping [tshift]); 1 for t − tshift < 0
      return unless_all_zero(b, a.first(2), b.select(tt, static_gauss_lf(b, a[0], a[1], tt), one));
    case TheoryFn::stat_exp_kt_lf:
      return unless_all_zero(b, a.first(2), b.select(tt, static_lorentz_lf(b, a[0], a[1], tt), one));
    case TheoryFn::dyn_gss_kt_lf: {
      // (frequency damping hopping-rate [tshift]) with |Δ|, |ν|; 1 where |Δ| < 1e-6; 0 for
      // t − tshift < 0; Keren's formula where ν/Δ > 5 (musrfit evaluates it at the unshifted t).
      auto delta = abs_of(b, a[1]), nu = abs_of(b, a[2]);
      auto volterra = b.table(static_cast<int>(TableKind::dyn_gauss_lf), tt, a[0], delta, nu);
      auto fast = b.sub(b.div(nu, delta), lit(b, 5.0));
      auto value = b.select(b.unary(OpCode::neg, fast), volterra, keren(b, a[0], delta, nu, t));
      value = b.select(tt, value, lit(b, 0.0));
      return unless_all_zero(b, a.first(3), b.select(b.sub(delta, lit(b, 1e-6)), value, one));
    }
    case TheoryFn::dyn_exp_kt_lf: {
      // (frequency damping hopping-rate [tshift]) with |a|, |ν|; 1 for t − tshift < 0; BMW's
      // approximation where ν > 5a or ω₀ ≥ 30a, else the Volterra solution.
      auto rate = abs_of(b, a[1]), nu = abs_of(b, a[2]);
      auto volterra = b.table(static_cast<int>(TableKind::dyn_lorentz_lf), tt, a[0], rate, nu);
      auto approx = bmw(b, a[0], rate, nu, tt);
      auto w0 = b.mul(lit(b, 2.0 * kPi), a[0]);
      auto value = b.select(b.sub(w0, b.mul(lit(b, 30.0), rate)), approx,
                            b.select(b.sub(b.mul(lit(b, 5.0), rate), nu), volterra, approx));
      return unless_all_zero(b, a.first(3), b.select(tt, value, one));
    }
    default: break;
  }
  throw Error("musr: build_kt_lf of another function");
}

}  // namespace tomo::musr
