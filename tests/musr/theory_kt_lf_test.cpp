// musrfit's longitudinal-field Kubo–Toyabe functions (statGssKTLF, statExpKTLF, dynGssKTLF,
// dynExpKTLF) against values computed independently by tests/musr/reference/kt_lf_reference.py
// (a powder average over the field distribution, Gauss–Legendre quadratures, a Volterra solve at
// two finer steps with Richardson extrapolation), and against their limits: zero field, high
// field, no fluctuations, fast fluctuations; the tshift rules; gradients vs differences.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "compute/musr/expression.hpp"
#include "compute/musr/kt_tables.hpp"

namespace tomo::musr {
namespace {

Program theory(std::string_view name, int n) {
  const auto* info = find_theory_function(name);
  EXPECT_NE(info, nullptr) << name;
  ProgramBuilder b(n);
  std::vector<std::int32_t> args;
  for (int i = 0; i < n; ++i) args.push_back(b.param(i));
  return b.finish(build_theory_function(b, info->fn, args, b.time()));
}

double at(std::string_view name, std::vector<double> params, double t) {
  const Program p = theory(name, static_cast<int>(params.size()));
  return evaluate(p, params, t);
}

double zf_gauss(double delta, double t) {
  const double s2 = delta * delta * t * t;
  return (1.0 + 2.0 * (1.0 - s2) * std::exp(-0.5 * s2)) / 3.0;
}

// The reference script's printed values (statGssKTLF: the powder average and the closed form
// agree to all ten printed digits).
TEST(MusrKtLf, StaticFunctionsMatchIndependentQuadrature) {
  struct Case {
    double nu0, rate, t, gauss, lorentz;
  };
  const Case cases[] = {{0.5, 1.0, 0.7, 0.7336106068, 0.5678232650},
                        {0.5, 1.0, 2.5, 0.8206950852, 0.6585331319},
                        {2.0, 1.0, 1.3, 0.9830440485, 0.8847725563},
                        {0.1, 0.5, 3.0, 0.2757941957, 0.3665247684}};
  for (const Case& c : cases) {
    EXPECT_NEAR(at("statGssKTLF", {c.nu0, c.rate}, c.t), c.gauss, 2e-6) << c.nu0 << " " << c.t;
    EXPECT_NEAR(at("sektlf", {c.nu0, c.rate}, c.t), c.lorentz, 2e-6) << c.nu0 << " " << c.t;
  }
}

TEST(MusrKtLf, DynamicFunctionsMatchIndependentVolterraSolution) {
  const double times[] = {0.5, 1.0, 2.0, 3.0};
  struct Case {
    const char* name;
    double nu0, rate, nu, v[4];
  };
  const Case cases[] = {{"dynGssKTLF", 0.5, 1.0, 0.5, {0.82775457, 0.70147060, 0.70969449, 0.64083664}},
                        {"dgktlf", 0.1, 0.5, 0.2, {0.94152459, 0.79449679, 0.45870401, 0.29942758}},
                        {"dynExpKTLF", 0.5, 1.0, 0.5, {0.58966659, 0.52393817, 0.48101960, 0.40108275}},
                        {"dektlf", 0.1, 0.5, 0.2, {0.72415657, 0.54365825, 0.36521457, 0.30723849}}};
  // musrfit's grid (here 300 points over 20 µs) bounds the accuracy: linear interpolation
  // between points 67 ns apart.
  for (const Case& c : cases)
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(at(c.name, {c.nu0, c.rate, c.nu}, times[i]), c.v[i], 2e-3) << c.name << " t=" << times[i];
}

TEST(MusrKtLf, ZeroAndHighFieldLimits) {
  for (double t : {0.0, 0.4, 1.1, 2.9, 6.0}) {
    // Below 0.02 MHz musrfit uses the zero-field function itself.
    EXPECT_DOUBLE_EQ(at("statGssKTLF", {0.01, 0.8}, t), zf_gauss(0.8, t));
    EXPECT_DOUBLE_EQ(at("statExpKTLF", {0.0, 0.8}, t), (1.0 + 2.0 * (1.0 - 0.8 * t) * std::exp(-0.8 * t)) / 3.0);
    // Just inside the integral's branch (Δ/ν₀ = 79): the field of 0.19 G hardly moves it.
    EXPECT_NEAR(at("statGssKTLF", {2.0 / 79.0, 2.0}, t), zf_gauss(2.0, t), 2e-3) << t;
    EXPECT_NEAR(at("statExpKTLF", {2.0 / 158.0, 2.0}, t), (1.0 + 2.0 * (1.0 - 2 * t) * std::exp(-2 * t)) / 3.0, 5e-3) << t;
    // 50 MHz (3.7 kG) against widths of 0.5/µs: decoupled, G = 1 − O((Δ/ω₀)²) for the
    // Gaussian; the Lorentzian's long tail leaves 1 − πa/(2ω₀) once its integral has converged.
    EXPECT_NEAR(at("statGssKTLF", {50.0, 0.5}, t), 1.0, 1e-4);
    EXPECT_NEAR(at("dynGssKTLF", {50.0, 0.5, 0.3}, t), 1.0, 1e-3);
    if (t > 1.0) EXPECT_NEAR(at("statExpKTLF", {50.0, 0.5}, t), 1.0 - M_PI / 2 * 0.5 / (2 * kPi * 50.0), 2e-5) << t;
  }
  EXPECT_DOUBLE_EQ(at("sgktlf", {0.0, 0.0}, 1.0), 1.0);  // musrfit: all parameters 0 → 1
}

TEST(MusrKtLf, NoFluctuationsGiveTheStaticFunction) {
  // ν → 0: the Volterra solution is the static function on musrfit's grid (linear
  // interpolation on 300 points over 20 µs: ~Δ²dt²/8).
  for (double t : {0.3, 1.0, 2.2, 4.0}) {
    EXPECT_NEAR(at("dynGssKTLF", {0.3, 0.6, 1e-9}, t), at("statGssKTLF", {0.3, 0.6}, t), 1e-3) << t;
    EXPECT_NEAR(at("dynExpKTLF", {0.3, 0.6, 1e-9}, t), at("statExpKTLF", {0.3, 0.6}, t), 2e-3) << t;
    EXPECT_NEAR(at("dynGssKTLF", {0.0, 0.6, 1e-9}, t), zf_gauss(0.6, t), 1e-3) << t;
  }
}

TEST(MusrKtLf, FastFluctuationsMeetTheMotionalNarrowingFormulas) {
  // musrfit switches to Keren's formula above ν/Δ = 5. Against the converged strong-collision
  // solution at ν/Δ = 4.999 (ν₀ = 0.2 MHz, Δ = 1; reference script, 1200 points over 3 µs and
  // Richardson): Keren's formula just above the switch is within 1.5e-2; musrfit's Volterra grid
  // (300 points over 20 µs whatever ν: ν·dt = 0.33) just below is off by up to 0.055, which
  // fits reproduce as musrfit does.
  const double times[] = {0.5, 1.5, 3.0}, converged[] = {0.88323854, 0.61448518, 0.35657549};
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(at("dynGssKTLF", {0.2, 1.0, 5.001}, times[i]), converged[i], 1.5e-2) << times[i];
    EXPECT_NEAR(at("dynGssKTLF", {0.2, 1.0, 4.999}, times[i]), converged[i], 5.5e-2) << times[i];
  }
  // Keren in zero field, ν ≫ Δ: e^(−2Δ²(νt − 1)/ν²) once t ≫ 1/ν.
  EXPECT_NEAR(at("dynGssKTLF", {0.0, 0.5, 20.0}, 4.0), std::exp(-2 * 0.25 * 4.0 / 20.0 + 2 * 0.25 / 400.0), 1e-9);
  // dynExpKTLF: BMW's approximation where ν > 5a or ω₀ ≥ 30a, at t = 1: its formula written out.
  {
    const double w = 2 * kPi * 2.0, a = 0.1, nu = 0.3, t = 1.0;
    const double den = std::pow(w, 4) + 2.44056 * std::pow(w, 3) * nu + 2.92063 * w * w * nu * nu + 1.69581 * w * std::pow(nu, 3) +
                       0.667277 * std::pow(nu, 4);
    const double b1 = (1.15331 * std::pow(w, 3) + 1.64826 * w * w * nu - 0.71763 * w * nu * nu) / den;
    const double b2 = (3.0 * std::pow(w, 3) + 0.386683 * w * w * nu - 5.01876 * w * nu * nu + 2.41854 * std::pow(nu, 3)) / den;
    const double x = w * t, j0 = std::sin(x) / x, j1 = (std::sin(x) - x * std::cos(x)) / (x * x), e = std::exp(-nu * t);
    const double v = std::exp(-4.0 / 3.0 * a * (b1 * (1 - j0 * e) + b2 * j1 * e + (1 - b2 * w / 3 - b1 * nu) * t));
    EXPECT_NEAR(at("dynExpKTLF", {2.0, a, nu}, t), v, 1e-14);
  }
}

TEST(MusrKtLf, TshiftAndNegativeTimesFollowMusrfit) {
  // statGssKTLF/statExpKTLF/dynExpKTLF: 1 before tshift; dynGssKTLF: 0 there.
  EXPECT_DOUBLE_EQ(at("statGssKTLF", {0.5, 1.0, 0.3}, 0.2), 1.0);
  EXPECT_DOUBLE_EQ(at("statExpKTLF", {0.5, 1.0, 0.3}, 0.2), 1.0);
  EXPECT_DOUBLE_EQ(at("dynExpKTLF", {0.5, 1.0, 0.5, 0.3}, 0.2), 1.0);
  EXPECT_DOUBLE_EQ(at("dynGssKTLF", {0.5, 1.0, 0.5, 0.3}, 0.2), 0.0);
  EXPECT_DOUBLE_EQ(at("dynGssKTLF", {0.5, 1.0, 0.5, 0.3}, 1.3), at("dynGssKTLF", {0.5, 1.0, 0.5}, 1.0));
  EXPECT_DOUBLE_EQ(at("statGssKTLF", {0.5, 1.0, 0.3}, 1.3), at("statGssKTLF", {0.5, 1.0}, 1.0));
  // Keren's branch reads the unshifted t (musrfit's rule): a shift changes only the t < tshift test.
  EXPECT_DOUBLE_EQ(at("dynGssKTLF", {0.5, 1.0, 8.0, 0.3}, 1.3), at("dynGssKTLF", {0.5, 1.0, 8.0}, 1.3));
  // |Δ| and |ν|, and 1 where |Δ| < 1e-6.
  EXPECT_DOUBLE_EQ(at("dynGssKTLF", {0.5, -1.0, -0.5}, 1.0), at("dynGssKTLF", {0.5, 1.0, 0.5}, 1.0));
  EXPECT_DOUBLE_EQ(at("dynGssKTLF", {0.5, 1e-7, 0.5}, 1.0), 1.0);
}

TEST(MusrKtLf, GradientMatchesDifferencesOfTheValue) {
  const Program p = theory("dynGssKTLF", 4);
  ProgramEvaluator ev(p);
  const std::vector<double> x = {0.4, 0.9, 0.7, 0.05};
  ev.prepare(x, true);
  std::vector<double> g(ev.used().size());
  for (double t : {0.37, 1.21, 2.53}) {
    ev.prepare(x, true);
    ev.value_and_gradient(t, g);
    for (std::size_t k = 0; k < g.size(); ++k) {
      const int i = ev.used()[k];
      const double h = 1e-4;
      std::vector<double> up = x, dn = x;
      up[i] += h, dn[i] -= h;
      const double fd = (evaluate(p, up, t) - evaluate(p, dn, t)) / (2 * h);
      EXPECT_NEAR(g[k], fd, 2e-3 * std::max(1.0, std::fabs(fd))) << "param " << i << " t " << t;
    }
  }
}

TEST(MusrKtLf, TablesAreBoundedAndLookupsFollowMusrfit) {
  const std::vector<double> v = {1.0, 3.0, 7.0};
  EXPECT_DOUBLE_EQ(kt_lookup(v, 0.5, -0.1), 0.0);
  EXPECT_DOUBLE_EQ(kt_lookup(v, 0.5, 0.25), 2.0);
  EXPECT_DOUBLE_EQ(kt_lookup(v, 0.5, 0.75), 5.0);
  EXPECT_DOUBLE_EQ(kt_lookup(v, 0.5, 1.0), 7.0);  // the last point on
  EXPECT_DOUBLE_EQ(kt_lookup(v, 0.5, 1e300), 7.0);
  EXPECT_DOUBLE_EQ(kt_slope(v, 0.5, 0.75), 8.0);
  EXPECT_DOUBLE_EQ(kt_slope(v, 0.5, 2.0), 0.0);
  // 20 MHz: musrfit's 16 points a period over 20 µs; a larger grid is capped.
  EXPECT_EQ(dynamic_kt_lf(TableKind::dyn_gauss_lf, 20.0, 5.0, 1.0).v.size(), 6400u);
  EXPECT_EQ(dynamic_kt_lf(TableKind::dyn_gauss_lf, 1e4, 5.0, 1.0).v.size(), kMaxVolterraPoints);
  EXPECT_EQ(dynamic_kt_lf(TableKind::dyn_lorentz_lf, 0.01, 0.05, 1.0).v.size(), 300u);
  // musrfit's step: 20 points a period above 1 MHz.
  EXPECT_DOUBLE_EQ(lf_integral(TableKind::gauss_lf_integral, 100.0, 1.0).dt, 1.0 / 100.0 / 20.0);
}

}  // namespace
}  // namespace tomo::musr
