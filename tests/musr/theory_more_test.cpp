// musrfit's analytic predefined functions beyond the basic set (spinGlass, rdAnisoHf,
// internFldGK/LL, skewedGss, the Noakes–Kalvius functions, muMinusExpTF) against their formulas
// written out here, their guards, and Dawson's integral against quadrature values of
// tests/musr/reference/kt_lf_reference.py.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/musr/expression.hpp"

namespace tomo::musr {
namespace {

double at(std::string_view name, std::vector<double> params, double t) {
  const auto* info = find_theory_function(name);
  EXPECT_NE(info, nullptr) << name;
  ProgramBuilder b(static_cast<int>(params.size()));
  std::vector<std::int32_t> args;
  for (int i = 0; i < static_cast<int>(params.size()); ++i) args.push_back(b.param(i));
  return evaluate(b.finish(build_theory_function(b, info->fn, args, b.time())), params, t);
}

constexpr double kTwoPi = 2.0 * M_PI;

TEST(MusrTheoryMore, DawsonIntegralMatchesQuadrature) {
  const double x[] = {0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0};
  const double f[] = {9.9335992397852652e-02, 4.2443638350202190e-01, 5.3807950691276873e-01, 3.0134038892379200e-01,
                      1.0213407442427713e-01, 5.0253847187598531e-02, 1.6675941401059175e-02};
  for (int i = 0; i < 7; ++i) {
    EXPECT_NEAR(dawson(x[i]), f[i], 5e-15 * f[i]) << x[i];
    EXPECT_NEAR(dawson(-x[i]), -f[i], 5e-15 * f[i]) << x[i];
  }
  EXPECT_NEAR(dawson(0.19999), dawson(0.20001), 2e-5);  // the series meets the sampling sum
  EXPECT_NEAR(dawson(100.0), 0.5 / 100.0 * (1 + 0.5e-4 + 0.75e-8 + 1.875e-12 + 6.5625e-16), 1e-17);
}

TEST(MusrTheoryMore, FunctionsMatchTheirFormulas) {
  const double t = 0.7;
  {  // spinGlass (λ γ q)
    const double l = 0.8, g = 2.0, q = 0.3;
    const double ltq = t * t * l * l * q, r = 4 * l * l * (1 - q) * t / g;
    const double v = (std::exp(-std::sqrt(r)) + 2 * (1 - ltq / std::sqrt(r + ltq)) * std::exp(-std::sqrt(r + ltq))) / 3;
    EXPECT_NEAR(at("spinGlass", {l, g, q}, t), v, 1e-14);
    EXPECT_NEAR(at("spg", {l, g, q, 0.2}, t + 0.2), v, 1e-14);
    EXPECT_DOUBLE_EQ(at("spg", {0.0, g, q}, t), 1.0);
    EXPECT_NEAR(at("spg", {l, g, q}, 0.0), 1.0, 1e-15);  // 0/0 at t = 0 taken as its limit
  }
  {  // rdAnisoHf (ν λ)
    const double nt = 1.5 * t, lt = 0.4 * t;
    const double v = (1 - 0.5 * nt) * std::exp(-0.5 * nt) / 6 + (1 - 0.25 * nt) * std::exp(-0.25 * (nt + 2.44949 * lt)) / 3;
    EXPECT_NEAR(at("rdAnisoHf", {1.5, 0.4}, t), v, 1e-14);
  }
  {  // internFldGK (f ν σ λ β)
    const double f = 0.6, nu = 1.3, s = 0.9, l = 0.2, beta = 1.4, w = kTwoPi * nu * t;
    const double lf = (1 - f) * std::exp(-std::pow(l * t, beta));
    const double v = lf + f * (std::cos(w) - s * s * t / (kTwoPi * nu) * std::sin(w)) * std::exp(-0.5 * s * s * t * t);
    EXPECT_NEAR(at("internFldGK", {f, nu, s, l, beta}, t), v, 1e-14);
    EXPECT_NEAR(at("ifgk", {f, 0.005, s, l, beta}, t), lf + f * (1 - s * s * t * t) * std::exp(-0.5 * s * s * t * t), 1e-14);
  }
  {  // internFldLL (f ν a λ β): musrfit's sine coefficient is λ/(2πν)
    const double f = 0.6, nu = 1.3, a = 0.9, l = 0.2, beta = 1.4, w = kTwoPi * nu * t;
    const double lf = (1 - f) * std::exp(-std::pow(l * t, beta));
    EXPECT_NEAR(at("internFldLL", {f, nu, a, l, beta}, t),
                lf + f * (std::cos(w) - l / (kTwoPi * nu) * std::sin(w)) * std::exp(-a * t), 1e-14);
    EXPECT_NEAR(at("ifll", {f, 0.005, a, l, beta}, t), lf + f * (1 - a * t) * std::exp(-a * t), 1e-14);
    EXPECT_THROW(at("ifll", {f, nu, a, l, beta, 0.1}, t), InputError);  // no tshift
  }
  {  // skewedGss (φ ν σ₋ σ₊)
    const double ph = 20.0 * M_PI / 180 + kTwoPi * 1.1 * t, sm = 0.8, sp = 1.6;
    const double zm = sm * t / std::sqrt(2.0), zp = sp * t / std::sqrt(2.0), wp = sp / (sp + sm), wm = 1 - wp;
    const double v = std::cos(ph) * (wm * std::exp(-zm * zm) + wp * std::exp(-zp * zp)) +
                     std::sin(ph) * 2 / std::sqrt(M_PI) * (wm * dawson(zm) - wp * dawson(zp));
    EXPECT_NEAR(at("skewedGss", {20.0, 1.1, -sm, sp}, t), v, 1e-14);
    // equal widths: a plain Gaussian-damped cosine
    EXPECT_NEAR(at("skg", {20.0, 1.1, 0.8, 0.8}, t), std::cos(ph) * std::exp(-0.5 * 0.56 * 0.56), 1e-14);
  }
  {  // staticNKZF (Δ₀ R_b), staticNKTF (φ ν Δ₀ R_b)
    const double d0 = 0.9, rb = 0.4, d2t2 = d0 * d0 * t * t, den = 1 + rb * rb * d2t2;
    EXPECT_NEAR(at("staticNKZF", {d0, rb}, t),
                1.0 / 3 + 2.0 / 3 * std::pow(1 / den, 1.5) * (1 - d2t2 / den) * std::exp(-0.5 * d2t2 / den), 1e-14);
    const double ph = 10.0 * M_PI / 180 + kTwoPi * 2.0 * t;
    EXPECT_NEAR(at("snktf", {10.0, 2.0, d0, rb}, t), std::sqrt(1 / den) * std::exp(-0.5 * d2t2 / den) * std::cos(ph), 1e-14);
    EXPECT_DOUBLE_EQ(at("snkzf", {d0, rb}, -0.1), 1.0);  // 1 before t0
  }
  {  // dynamicNKZF (Δ₀ R_b ν_c), dynamicNKTF (φ ν Δ₀ R_b ν_c)
    const double d0 = 0.9, rb = 0.4, nc = 1.7;
    const double th = (std::exp(-nc * t) - 1 + nc * t) / (nc * nc);
    const double den = 1 + 4 * d0 * d0 * rb * rb * th;
    EXPECT_NEAR(at("dynamicNKZF", {d0, rb, nc}, t), std::sqrt(1 / den) * std::exp(-2 * d0 * d0 * th / den), 1e-14);
    const double th0 = 0.5 * t * t, den0 = 1 + 4 * d0 * d0 * rb * rb * th0;
    EXPECT_NEAR(at("dnkzf", {d0, rb, 0.0}, t), std::sqrt(1 / den0) * std::exp(-2 * d0 * d0 * th0 / den0), 1e-14);
    const double den2 = 1 + 2 * d0 * d0 * rb * rb * th, ph = 10.0 * M_PI / 180 + kTwoPi * 2.0 * t;
    EXPECT_NEAR(at("dnktf", {10.0, 2.0, d0, rb, nc}, t), std::sqrt(1 / den2) * std::exp(-d0 * d0 * th / den2) * std::cos(ph), 1e-14);
  }
  {  // muMinusExpTF (N₀ τ A λ φ ν [tshift])
    const double v = 1000 * std::exp(-t / 2.0) * (1 + 0.2 * std::exp(-0.3 * t) * std::cos(kTwoPi * 1.5 * t + 15 * M_PI / 180));
    EXPECT_NEAR(at("muMinusExpTF", {1000, 2.0, 0.2, 0.3, 15, 1.5}, t), v, 1e-10);
    EXPECT_NEAR(at("mmsetf", {1000, 2.0, 0.2, 0.3, 15, 1.5, 0.1}, t + 0.1), v, 1e-10);
  }
}

}  // namespace
}  // namespace tomo::musr
