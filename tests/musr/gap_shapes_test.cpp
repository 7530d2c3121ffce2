// libGapIntegrals' shaped gaps (TGapAnSWave, TGapNonMonDWave1/2, the two-gap TGapCosSqDWave and
// TGapSinSqDWave) as native built-ins
// (compute/musr/bmw/gap_shapes.hpp): values against an independent quadrature of the library's
// own double integrals (tests/musr/reference/gap_shapes_reference.py), the limits where a shape
// becomes the s- or d-wave, the gradient, gl-compute against cpu and the argument counts.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "compute/musr/bmw/gap_integrals.hpp"
#include "compute/musr/bmw/gap_shapes.hpp"
#include "compute/musr/user_fcn.hpp"
#include "tests/musr/gap_shapes_data.hpp"
#include "tests/musr/gpu_test_data.hpp"

namespace tomo::musr::test {
namespace {

struct Reference {
  const char* kind;
  double a, t;
  bool prozorov;  // with c0 1.468, aG 1.33333 (else the 1.82, 1.018, 0.51 form)
  double want;
};

// mpmath at 18 digits, Tc 4.47 K, Δ0 1.547 meV (the script's output).
constexpr Reference kReference[] = {
    {"an_s", 0.4, 0.5, true, 0.999999999438047},
    {"an_s", 0.4, 2.0, true, 0.991683003933614},
    {"an_s", 0.4, 4.3, true, 0.30916731705042},
    {"an_s", 1.5, 1.0, true, 0.929274265782312},
    {"an_s", 1.5, 3.0, true, 0.7329273756623},
    {"non_mon1", 0.3, 0.5, true, 0.942411381746661},
    {"non_mon1", 0.3, 2.0, true, 0.738532013111168},
    {"non_mon1", 0.3, 4.3, true, 0.0986515656292677},
    {"non_mon2", 2.0, 1.0, true, 0.539520983840733},
    {"non_mon2", 2.0, 3.0, true, 0.0706870652976323},
    {"an_s", 0.4, 2.0, false, 0.992228137708849},
    {"non_mon1", 0.8, 1.5, false, 0.701555381327698},
};

struct TwoReference {
  const char* kind;
  double delta0_s, t, want;  // Δ0_D 1.547 meV
};
constexpr TwoReference kTwoReference[] = {
    {"cos_sq", 0.3, 1.0, 0.936162917399108},
    {"cos_sq", 0.3, 3.0, 0.76237204385913},
    {"sin_sq", 0.3, 3.0, 0.629658099449617},
    {"cos_sq", 2.2, 2.0, 0.998738702256884},
};

const char* function_of(const std::string& kind) {
  return kind == "an_s" ? "TGapAnSWave" : kind == "non_mon1" ? "TGapNonMonDWave1" : "TGapNonMonDWave2";
}

std::vector<double> params_of(const Reference& r) {
  if (r.prozorov) return {1.0, 4.47, 1.547, r.a, 1.468, 1.33333};
  return {1.0, 4.47, 1.547, r.a};
}

double delta_of(const Reference& r) {
  const double shape = r.prozorov ? 1.468 * std::sqrt(1.33333 * (4.47 / r.t - 1)) : 1.82 * std::pow(1.018 * (4.47 / r.t - 1), 0.51);
  return 1.547 * std::tanh(shape) / (0.172346648 * r.t);
}

GapShape shape_of(const std::string& kind) {
  return kind == "an_s" ? GapShape::an_s_wave : kind == "non_mon1" ? GapShape::non_mon_d_wave1 : GapShape::non_mon_d_wave2;
}

TEST(MusrGapShapes, MatchTheLibrarysDoubleIntegrals) {
  for (const auto& r : kReference) {
    EXPECT_NEAR(gap_shape_density(shape_of(r.kind), r.a, delta_of(r)), r.want, 1e-9) << r.kind << " a " << r.a << " T " << r.t;
    const Program p = shape_program(function_of(r.kind), r.prozorov ? 5 : 3);
    EXPECT_NEAR(evaluate(p, params_of(r), r.t), r.want, 2e-7) << r.kind << " a " << r.a << " T " << r.t << " (table)";
  }
}

TEST(MusrGapShapes, TwoGapDWavesMatchTheLibrarysIntegralsWithItsCutOff) {
  for (const auto& r : kTwoReference) {
    const bool cos_sq = std::string(r.kind) == "cos_sq";
    const double delta = 1.547 * std::tanh(1.82 * std::pow(1.018 * (4.47 / r.t - 1), 0.51)) / (0.172346648 * r.t);
    EXPECT_NEAR(gap_shape_density(cos_sq ? GapShape::cos_sq_d_wave : GapShape::sin_sq_d_wave, r.delta0_s / 1.547, delta), r.want, 1e-9)
        << r.kind << " " << r.delta0_s << " T " << r.t;
    const Program p = shape_program(cos_sq ? "TGapCosSqDWave" : "TGapSinSqDWave", 3);
    EXPECT_NEAR(evaluate(p, std::vector<double>{1.0, 4.47, 1.547, r.delta0_s}, r.t), r.want, 2e-7) << r.kind << " (table)";
  }
}

TEST(MusrGapShapes, BecomeTheSAndDWaveAtTheirLimits) {
  // a = 0: the anisotropic s-wave is the s-wave; a = 1: the first non-monotonic d-wave is cos 2φ.
  for (double delta : {0.3, 2.0, 9.0}) {
    EXPECT_NEAR(gap_shape_density(GapShape::an_s_wave, 0.0, delta), gap_superfluid_density(GapSymmetry::s_wave, delta), 1e-13);
    EXPECT_NEAR(gap_shape_density(GapShape::non_mon_d_wave1, 1.0, delta), gap_superfluid_density(GapSymmetry::d_wave, delta), 1e-9);
  }
  const Program p = shape_program("TGapAnSWave", 3);
  EXPECT_EQ(evaluate(p, std::vector<double>{1.0, 4.47, 1.547, 0.4}, 0.0), 1.0);
  EXPECT_EQ(evaluate(p, std::vector<double>{1.0, 4.47, 1.547, 0.4}, 4.5), 0.0);
}

TEST(MusrGapShapes, NoRealGapIsNaNAndExtremeShapesEnd) {
  // 1 + a cos² 2φ < 0 somewhere: the library's square root of a negative gap², NaN.
  EXPECT_TRUE(std::isnan(gap_shape_density(GapShape::non_mon_d_wave2, -5.0, 2.0)));
  EXPECT_TRUE(std::isnan(gap_shape_density(GapShape::an_s_wave, std::nan(""), 2.0)));
  // A huge anisotropy: the gap vanishes only on needles, so almost nothing is depleted.
  const double r = gap_shape_density(GapShape::an_s_wave, 1e150, 2.0);
  EXPECT_GT(r, 0.999);
  EXPECT_LE(r, 1.0);
}

TEST(MusrGapShapes, GradientMatchesDifferencesOfTheValue) {
  for (const char* name : {"TGapAnSWave", "TGapNonMonDWave1", "TGapNonMonDWave2"}) {
    const Program p = shape_program(name, 5);
    const std::vector<double> par = {7.983, 4.47, 1.547, std::string(name) == "TGapNonMonDWave2" ? 2.0 : 0.4, 1.468, 1.33333};
    ProgramEvaluator ev(p);
    ev.prepare(par, true);
    std::vector<double> g(ev.used().size());
    for (double t : {0.8, 2.5, 4.2}) {
      (void)ev.value_and_gradient(t, g);
      for (std::size_t k = 0; k < ev.used().size(); ++k) {
        const int i = ev.used()[k];
        const double h = 1e-5 * std::fabs(par[static_cast<std::size_t>(i)]);
        auto up = par, dn = par;
        up[static_cast<std::size_t>(i)] += h, dn[static_cast<std::size_t>(i)] -= h;
        const double want = (evaluate(p, up, t) - evaluate(p, dn, t)) / (2 * h);
        EXPECT_NEAR(g[k], want, 1e-4 * std::max(1.0, std::fabs(want))) << name << " parameter " << i + 1 << ", T = " << t;
      }
    }
  }
}

TEST(MusrGapShapes, GlComputeEqualsCpu) {
  const FitData data = shape_data();
  expect_matches_reference(*make_evaluator("gl-compute", data, false), data, perturbed(shape_params()), 1e-9, 1e-7);
}

TEST(MusrGapShapes, ArgumentCountsAsTheLibrary) {
  const auto here = std::filesystem::path(TOMO_SOURCE_DIR);
  EXPECT_EQ(resolve_user_function("libGapIntegrals", "TGapAnSWave", here)->arity_error(4),
            "takes 3 or 5 arguments (Tc, Δ0, a[, c0, aG]), got 4");
  EXPECT_EQ(resolve_user_function("libGapIntegrals", "TGapNonMonDWave2", here)->arity_error(5), "");
  EXPECT_EQ(resolve_user_function("libGapIntegrals", "TGapCosSqDWave", here)->arity_error(7),
            "takes 3 arguments (Tc, Δ0_D, Δ0_S), got 7 (the form with c0, aG for each gap, whose ratio changes with T, is not provided)");
}

}  // namespace
}  // namespace tomo::musr::test
