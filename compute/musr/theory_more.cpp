// musrfit's analytic predefined functions beyond the basic set [Suter2012]: spin glass, random
// anisotropic hyperfine, internal fields with Gaussian/Lorentzian (Kornilov, Larkin) broadening,
// the skewed Gaussian, Noakes–Kalvius static and dynamic, μ⁻ precession. Formulas and guards
// as musrfit evaluates them (docs/musr.md lists each).
#include <cmath>

#include "compute/core/error.hpp"
#include "compute/musr/theory_builders.hpp"

namespace tomo::musr {
namespace {

std::int32_t lit(ProgramBuilder& b, double v) { return b.constant(v); }

// φπ/180 + 2πν·t
std::int32_t phase_of(ProgramBuilder& b, std::int32_t phi_deg, std::int32_t nu, std::int32_t tt) {
  return b.add(b.mul(lit(b, kPi / 180.0), phi_deg), b.mul(b.mul(lit(b, 2.0 * kPi), nu), tt));
}

// Noakes–Kalvius Θ(t): t²/2 where ν_c < 1e-6, else (e^(−ν_c t) − 1 + ν_c t)/ν_c².
std::int32_t nk_theta(ProgramBuilder& b, std::int32_t nuc, std::int32_t tt) {
  auto nt = b.mul(nuc, tt);
  auto full = b.div(b.add(b.sub(exp_neg(b, nt), lit(b, 1.0)), nt), b.mul(nuc, nuc));
  return b.select(b.sub(nuc, lit(b, 1e-6)), full, b.mul(lit(b, 0.5), b.mul(tt, tt)));
}

// (1−f)·e^(−(λt)^β) + f·osc, the longitudinal part of internFldGK/LL.
std::int32_t with_longitudinal(ProgramBuilder& b, std::int32_t f, std::int32_t lambda, std::int32_t beta, std::int32_t tt,
                               std::int32_t osc) {
  auto lf = exp_neg(b, b.binary(OpCode::pow, b.mul(lambda, tt), beta));
  return b.add(b.mul(b.sub(lit(b, 1.0), f), lf), b.mul(f, osc));
}

}  // namespace

std::int32_t build_more_theory(ProgramBuilder& b, TheoryFn fn, std::span<const std::int32_t> a, std::int32_t tt,
                               std::int32_t t) {
  auto one = lit(b, 1.0);
  auto half = lit(b, 0.5);
  switch (fn) {
    case TheoryFn::spin_glass: {
      // (λ γ q): ⅓[e^(−√|r|) + 2(1 − λ²qt²/√(|r| + λ²qt²))e^(−√(|r| + λ²qt²))], r = 4λ²(1−q)t/γ; 1 where λ = 0
      auto l2 = b.mul(a[0], a[0]);
      auto ltq = b.mul(b.mul(b.mul(tt, tt), l2), a[2]);
      auto r = abs_of(b, b.div(b.mul(b.mul(b.mul(lit(b, 4.0), l2), b.sub(one, a[2])), tt), a[1]));
      auto rl = b.unary(OpCode::sqrt_abs, r), rt = b.unary(OpCode::sqrt_abs, b.add(r, ltq));
      // ltq/rt → 0 as t → 0 (0/0 at t = 0 itself)
      auto ratio = b.select(b.unary(OpCode::neg, rt), lit(b, 0.0), b.div(ltq, rt));
      auto v = b.mul(lit(b, 1.0 / 3.0), b.add(exp_neg(b, rl), b.mul(b.mul(lit(b, 2.0), b.sub(one, ratio)), exp_neg(b, rt))));
      return b.select(b.unary(OpCode::neg, l2), one, v);
    }
    case TheoryFn::rd_aniso_hf: {
      // (ν λ): ⅙(1 − νt/2)e^(−νt/2) + ⅓(1 − νt/4)e^(−(νt + 2.44949λt)/4)
      auto nt = b.mul(tt, a[0]), lt = b.mul(tt, a[1]);
      auto p1 = b.mul(b.sub(one, b.mul(half, nt)), exp_neg(b, b.mul(half, nt)));
      auto p2 = b.mul(b.sub(one, b.mul(lit(b, 0.25), nt)), exp_neg(b, b.mul(lit(b, 0.25), b.add(nt, b.mul(lit(b, 2.44949), lt)))));
      return b.add(b.mul(lit(b, 1.0 / 6.0), p1), b.mul(lit(b, 1.0 / 3.0), p2));
    }
    case TheoryFn::intern_fld_gk: {
      // (f ν σ λ β): f(cos ωt − σ²t/(2πν) sin ωt)e^(−σ²t²/2) + (1−f)e^(−(λt)^β); ν < 0.01: f(1 − σ²t²)e^(−σ²t²/2) + …
      auto wt = b.mul(b.mul(lit(b, 2.0 * kPi), a[1]), tt);
      auto st = b.mul(a[2], tt);
      auto s2 = b.mul(st, st);
      auto g = exp_neg(b, b.mul(half, s2));
      auto sinc = b.div(b.mul(b.mul(a[2], a[2]), tt), b.mul(lit(b, 2.0 * kPi), a[1]));
      auto osc = b.mul(b.sub(b.unary(OpCode::cos, wt), b.mul(sinc, b.unary(OpCode::sin, wt))), g);
      auto low = b.mul(b.sub(one, s2), g);
      return with_longitudinal(b, a[0], a[3], a[4], tt, b.select(b.sub(a[1], lit(b, 0.01)), osc, low));
    }
    case TheoryFn::intern_fld_ll: {
      // (f ν a λ β): f(cos ωt − λ/(2πν) sin ωt)e^(−at) + (1−f)e^(−(λt)^β); ν < 0.01: f(1 − at)e^(−at) + …
      auto wt = b.mul(b.mul(lit(b, 2.0 * kPi), a[1]), tt);
      auto at = b.mul(a[2], tt);
      auto e = exp_neg(b, at);
      auto k = b.div(a[3], b.mul(lit(b, 2.0 * kPi), a[1]));
      auto osc = b.mul(b.sub(b.unary(OpCode::cos, wt), b.mul(k, b.unary(OpCode::sin, wt))), e);
      auto low = b.mul(b.sub(one, at), e);
      return with_longitudinal(b, a[0], a[3], a[4], tt, b.select(b.sub(a[1], lit(b, 0.01)), osc, low));
    }
    case TheoryFn::skewed_gss: {
      // (φ ν σ₋ σ₊): cos(φ + ωt)(w₋g₋ + w₊g₊) + sin(φ + ωt)·(2/√π)(w₋F(z₋) − w₊F(z₊)),
      // z± = |σ±|t/√2, g± = e^(−z±²), w± = |σ±|/(|σ₋| + |σ₊|), F Dawson's integral (musrfit's
      // g·(2z/√π)·₁F₁(½; 3/2; z²)); the sine part is 0 where a z exceeds 26.7776.
      auto sm = abs_of(b, a[2]), sp = abs_of(b, a[3]);
      auto zm = b.mul(b.mul(sm, tt), lit(b, 1.0 / std::sqrt(2.0))), zp = b.mul(b.mul(sp, tt), lit(b, 1.0 / std::sqrt(2.0)));
      auto gm = exp_neg(b, b.mul(zm, zm)), gp = exp_neg(b, b.mul(zp, zp));
      auto wp = b.div(sp, b.add(sp, sm));
      auto wm = b.sub(one, wp);
      auto ph = phase_of(b, a[0], a[1], tt);
      auto even = b.mul(b.unary(OpCode::cos, ph), b.add(b.mul(wm, gm), b.mul(wp, gp)));
      auto odd = b.mul(lit(b, 2.0 / std::sqrt(kPi)),
                       b.sub(b.mul(wm, b.unary(OpCode::dawson, zm)), b.mul(wp, b.unary(OpCode::dawson, zp))));
      constexpr double z_max = 26.7776;
      odd = b.select(b.sub(lit(b, z_max), zm), b.select(b.sub(lit(b, z_max), zp), odd, lit(b, 0.0)), lit(b, 0.0));
      return b.add(even, b.mul(b.unary(OpCode::sin, ph), odd));
    }
    case TheoryFn::static_nk_zf:
    case TheoryFn::static_nk_tf: {
      // ZF (Δ₀ R_b): ⅓ + ⅔(1/D)^(3/2)(1 − Δ₀²t²/D)e^(−Δ₀²t²/(2D)), D = 1 + R_b²Δ₀²t²;
      // TF (φ ν Δ₀ R_b): D^(−½)e^(−Δ₀²t²/(2D))cos(φ + 2πνt). 1 for unshifted t < 0.
      const bool tf = fn == TheoryFn::static_nk_tf;
      auto d0 = a[tf ? 2 : 0], rb = a[tf ? 3 : 1];
      auto d2t2 = b.mul(b.mul(d0, d0), b.mul(tt, tt));
      auto denom = b.add(one, b.mul(b.mul(rb, rb), d2t2));
      auto g = exp_neg(b, b.div(b.mul(half, d2t2), denom));
      auto inv = b.div(one, denom);
      std::int32_t v;
      if (tf) {
        v = b.mul(b.mul(b.unary(OpCode::sqrt_abs, inv), g), b.unary(OpCode::cos, phase_of(b, a[0], a[1], tt)));
      } else {
        auto body = b.mul(b.mul(b.binary(OpCode::pow, inv, lit(b, 1.5)), b.sub(one, b.div(d2t2, denom))), g);
        v = b.add(lit(b, 1.0 / 3.0), b.mul(lit(b, 2.0 / 3.0), body));
      }
      return b.select(t, v, one);
    }
    case TheoryFn::dynamic_nk_zf:
    case TheoryFn::dynamic_nk_tf: {
      // ZF (Δ₀ R_b ν_c): D^(−½)e^(−2Δ₀²Θ/D), D = 1 + 4Δ₀²R_b²Θ;
      // TF (φ ν Δ₀ R_b ν_c): D^(−½)e^(−Δ₀²Θ/D)cos(φ + 2πνt), D = 1 + 2Δ₀²R_b²Θ. 1 for unshifted t < 0.
      const bool tf = fn == TheoryFn::dynamic_nk_tf;
      auto d0 = a[tf ? 2 : 0], rb = a[tf ? 3 : 1], nuc = a[tf ? 4 : 2];
      auto theta = nk_theta(b, nuc, tt);
      auto d02 = b.mul(d0, d0);
      auto k = lit(b, tf ? 2.0 : 4.0);
      auto denom = b.add(one, b.mul(b.mul(b.mul(k, d02), b.mul(rb, rb)), theta));
      auto g = exp_neg(b, b.div(b.mul(b.mul(lit(b, tf ? 1.0 : 2.0), d02), theta), denom));
      auto v = b.mul(b.unary(OpCode::sqrt_abs, b.div(one, denom)), g);
      if (tf) v = b.mul(v, b.unary(OpCode::cos, phase_of(b, a[0], a[1], tt)));
      return b.select(t, v, one);
    }
    case TheoryFn::mu_minus_exp_tf: {
      // (N₀ τ A λ φ ν): N₀e^(−t/τ)[1 + A e^(−λt) cos(2πνt + φ)]
      auto osc = b.mul(b.mul(a[2], exp_neg(b, b.mul(a[3], tt))), b.unary(OpCode::cos, phase_of(b, a[4], a[5], tt)));
      return b.mul(b.mul(a[0], exp_neg(b, b.div(tt, a[1]))), b.add(one, osc));
    }
    default: break;
  }
  throw Error("musr: build_more_theory of another function");
}

}  // namespace tomo::musr
