// libGapIntegrals' superfluid densities as native built-ins: values against an independent
// quadrature of the library's own double integrals (tests/musr/reference/gap_integrals_reference.py),
// the orientation average of the p-waves, the limits, the gradient and gl-compute against cpu.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "compute/musr/bmw/gap_integrals.hpp"
#include "compute/musr/user_fcn.hpp"
#include "tests/musr/gap_integrals_data.hpp"
#include "tests/musr/gpu_test_data.hpp"

namespace tomo::musr::test {
namespace {

struct Reference {
  const char* kind;
  double t, want;
};

// mpmath at 20 digits, Tc 4.47 K, Δ0 1.547 meV, c0 1.468, aG 1.33333 (the script's output).
constexpr Reference kReference[] = {
    {"d", 0.5, 0.961324766631336},        {"d", 2.0, 0.832871931785615},       {"d", 4.3, 0.163130682183141},
    {"s", 0.5, 0.999999999999996},        {"s", 2.0, 0.998550212569547},       {"s", 4.3, 0.30727220575429},
    {"point_ab", 2.0, 0.989434441718154}, {"point_c", 2.0, 0.875102060328691}, {"line_ab", 2.0, 0.639057871694804},
    {"line_c", 2.0, 0.960190164859968},
};

// ρ(T) through the user function with the example's parameters (λ⁻²(0) = 1); `tag` < 0: no orientation.
double rho(const std::string& name, double t, double tag = -1) {
  if (tag < 0) return evaluate(gap_program(name, 4), std::vector<double>{1.0, 4.47, 1.547, 1.468, 1.33333}, t);
  return evaluate(gap_program(name, 5), std::vector<double>{1.0, 4.47, 1.547, tag, 1.468, 1.33333}, t);
}

double delta_at(double t) { return 1.547 * std::tanh(1.468 * std::sqrt(1.33333 * (4.47 / t - 1))) / (0.172346648 * t); }

TEST(MusrGapIntegrals, MatchTheLibrarysDoubleIntegrals) {
  for (const auto& r : kReference) {
    const std::string k = r.kind;
    double got = 0, direct = 0;
    if (k == "d") got = rho("TGapDWave", r.t), direct = gap_superfluid_density(GapSymmetry::d_wave, delta_at(r.t));
    if (k == "s") got = rho("TGapSWave", r.t), direct = gap_superfluid_density(GapSymmetry::s_wave, delta_at(r.t));
    if (k == "point_ab") got = rho("TGapPointPWave", r.t, 0), direct = gap_superfluid_density(GapSymmetry::point_p_ab, delta_at(r.t));
    if (k == "point_c") got = rho("TGapPointPWave", r.t, 1), direct = gap_superfluid_density(GapSymmetry::point_p_c, delta_at(r.t));
    if (k == "line_ab") got = rho("TGapLinePWave", r.t, 0), direct = gap_superfluid_density(GapSymmetry::line_p_ab, delta_at(r.t));
    if (k == "line_c") got = rho("TGapLinePWave", r.t, 1), direct = gap_superfluid_density(GapSymmetry::line_p_c, delta_at(r.t));
    EXPECT_NEAR(direct, r.want, 1e-9) << k << " at " << r.t << " K";
    EXPECT_NEAR(got, r.want, 2e-7) << k << " at " << r.t << " K (table)";  // linear interpolation in s
  }
}

TEST(MusrGapIntegrals, SechIntegralIsOneAtZeroGapAndTheCachedCurveAgrees) {
  EXPECT_NEAR(gap_sech_integral(0.0), 1.0, 1e-12);  // ∫₀^∞ sech² y dy = tanh(∞)
  EXPECT_NEAR(gap_superfluid_density(GapSymmetry::d_wave, 0.0), 0.0, 1e-10);
  EXPECT_NEAR(gap_superfluid_density(GapSymmetry::s_wave, 3.3), 1.0 - gap_sech_integral(3.3), 1e-10);
  for (auto s : {GapSymmetry::point_p_ab, GapSymmetry::point_p_c, GapSymmetry::line_p_ab, GapSymmetry::line_p_c})
    EXPECT_NEAR(gap_superfluid_density(s, 0.0), 0.0, 1e-10) << static_cast<int>(s);
  // Nodes: the d-wave density approaches 1 as 1 − a/δ at low T, the s-wave one exponentially.
  EXPECT_GT(1.0 - gap_superfluid_density(GapSymmetry::d_wave, 1000.0), 1e-4);
  EXPECT_LT(1.0 - gap_superfluid_density(GapSymmetry::s_wave, 30.0), 1e-20);
}

TEST(MusrGapIntegrals, PWavesAverageTheAxesAsTheLibrary) {
  for (const char* n : {"TGapPointPWave", "TGapLinePWave"}) {
    const double ab = rho(n, 2.0, 0), c = rho(n, 2.0, 1);
    EXPECT_NEAR(rho(n, 2.0), (ab + 2 * std::sqrt(ab * c)) / 3, 1e-15) << n;
    EXPECT_NEAR(rho(n, 2.0, 2), rho(n, 2.0), 1e-15) << n;
    EXPECT_NEAR(rho(n, 2.0, 0.7), ab, 1e-15) << n;  // the tag's integer part, as the library
  }
}

TEST(MusrGapIntegrals, OneAtZeroTemperatureAndZeroFromTc) {
  for (const char* n : {"TGapSWave", "TGapDWave", "TGapPointPWave", "TGapLinePWave"}) {
    EXPECT_EQ(rho(n, 0.0), 1.0) << n;
    EXPECT_EQ(rho(n, -1.0), 1.0) << n;
    EXPECT_EQ(rho(n, 4.47), 0.0) << n;
    EXPECT_EQ(rho(n, 5.0), 0.0) << n;
    EXPECT_LT(rho(n, 4.4699), 1e-3) << n;
  }
}

TEST(MusrGapIntegrals, CarringtonManzanoGapWithTwoArguments) {
  const Program p = gap_program("TGapDWave", 2);
  for (double t : {0.7, 3.1}) {
    const double delta = 1.547 * std::tanh(1.82 * std::pow(1.018 * (4.47 / t - 1), 0.51)) / (0.172346648 * t);
    EXPECT_NEAR(evaluate(p, std::vector<double>{2.0, 4.47, 1.547}, t), 2.0 * gap_superfluid_density(GapSymmetry::d_wave, delta), 4e-7) << t;
  }
}

TEST(MusrGapIntegrals, GradientMatchesDifferencesOfTheValue) {
  const Program p = gap_program("TGapDWave", 4);
  const std::vector<double> par = gap_params();
  ProgramEvaluator ev(p);
  ev.prepare(par, true);
  std::vector<double> g(ev.used().size());
  for (double t : {0.3, 2.5, 4.2}) {
    (void)ev.value_and_gradient(t, g);
    for (std::size_t k = 0; k < ev.used().size(); ++k) {
      const int i = ev.used()[k];
      const double h = 1e-5 * std::fabs(par[i]);
      auto up = par, dn = par;
      up[i] += h, dn[i] -= h;
      const double want = (evaluate(p, up, t) - evaluate(p, dn, t)) / (2 * h);
      EXPECT_NEAR(g[k], want, 1e-4 * std::max(1.0, std::fabs(want))) << "parameter " << i + 1 << ", T = " << t;
    }
  }
}

TEST(MusrGapIntegrals, GlComputeEqualsCpu) {
  const FitData data = gap_data();
  expect_matches_reference(*make_evaluator("gl-compute", data, false), data, gap_params(), 1e-9, 1e-7);
  expect_matches_reference(*make_evaluator("gl-compute", data, false), data, perturbed(gap_params()), 1e-9, 1e-7);
}

TEST(MusrGapIntegrals, ClosedFormsPowerLawAndDirtySWave) {
  // Values worked by hand from the library's formulas: 1 − (2/4.47)^2.5, and at T = 2 K
  // Δ/Δ0 = tanh(1.468·√(1.33333·(4.47/2 − 1))) = 0.954826…, times tanh(1.547·that/(0.172346648·2)).
  const Program pl = gap_program("TGapPowerLaw", 2);
  EXPECT_NEAR(evaluate(pl, std::vector<double>{1.0, 4.47, 2.5}, 2.0), 1.0 - std::pow(2.0 / 4.47, 2.5), 1e-15);
  EXPECT_EQ(evaluate(pl, std::vector<double>{1.0, 4.47, 2.5}, 5.0), 0.0);
  EXPECT_EQ(evaluate(pl, std::vector<double>{1.0, 4.47, 2.5}, 0.0), 1.0);
  const double r = std::tanh(1.468 * std::sqrt(1.33333 * (4.47 / 2.0 - 1.0)));
  EXPECT_NEAR(r, 0.9548264163, 1e-10);
  EXPECT_NEAR(rho("TGapDirtySWave", 2.0), r * std::tanh(1.547 * r / (0.172346648 * 2.0)), 1e-15);
  EXPECT_EQ(rho("TGapDirtySWave", 4.5), 0.0);
}

TEST(MusrGapIntegrals, ArgumentCountsAsTheLibrary) {
  const auto here = std::filesystem::path(TOMO_SOURCE_DIR);
  EXPECT_EQ(resolve_user_function("libGapIntegrals", "TGapDWave", here)->arity_error(3),
            "takes 2 or 4 arguments (Tc, Δ0[, c0, aG]), got 3");
  EXPECT_EQ(resolve_user_function("libGapIntegrals", "TGapDWave", here)->arity_error(4), "");
  EXPECT_EQ(resolve_user_function("libGapIntegrals", "TGapPointPWave", here)->arity_error(6),
            "takes 2 to 5 arguments (Tc, Δ0[, orientation][, c0, aG]), got 6");
  EXPECT_EQ(resolve_user_function("libGapIntegrals", "TGapLinePWave", here)->arity_error(3), "");
  EXPECT_EQ(resolve_user_function("libGapIntegrals", "TGapPowerLaw", here)->arity_error(4), "takes 2 arguments (Tc, n), got 4");
}

}  // namespace
}  // namespace tomo::musr::test
