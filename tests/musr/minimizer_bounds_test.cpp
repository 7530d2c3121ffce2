// A fit whose minimum lies on a parameter's bound converged: MINUIT's bounded parameters (a sine
// transform) have no gradient at the bound, so EDM counts only the parameters off their bounds.
// Before, the outward gradient of the bounded parameter made EDM = f_min here and the fit
// "did not converge" (exit 4) — as two of musrfit's depth-profile examples with a fraction at 0.
#include <gtest/gtest.h>

#include <cmath>

#include "compute/musr/minimizer.hpp"

namespace tomo::musr {
namespace {

// f(a, b) = A² + B² + 2ρAB, A = (a − a0)/σa, B = (b − b0)/σb: a correlated quadratic bowl.
class Bowl final : public Chi2Evaluator {
 public:
  Bowl(double a0, double b0, double sa, double sb, double rho) : a0_(a0), b0_(b0), sa_(sa), sb_(sb), rho_(rho) {}
  std::string describe() const override { return "bowl"; }
  void synchronize() override {}
  void configure(const EvaluatorOptions&) override {}
  void upload(const FitData&) override {}
  double evaluate(std::span<const double> p) override {
    const double A = (p[0] - a0_) / sa_, B = (p[1] - b0_) / sb_;
    return A * A + B * B + 2.0 * rho_ * A * B;
  }
  double evaluate_with_gradient(std::span<const double> p, std::span<double> g) override {
    const double A = (p[0] - a0_) / sa_, B = (p[1] - b0_) / sb_;
    g[0] = (2.0 * A + 2.0 * rho_ * B) / sa_;
    g[1] = (2.0 * B + 2.0 * rho_ * A) / sb_;
    return evaluate(p);
  }

 private:
  double a0_, b0_, sa_, sb_, rho_;
};

FitResult start(double a, double b) {
  FitResult r;
  for (const auto& [name, v] : {std::pair<const char*, double>{"a", a}, {"b", b}}) {
    FitParameterState s;
    s.name = name;
    s.value = v;
    s.step = 0.1;
    s.free = true;
    r.params.push_back(s);
  }
  return r;
}

TEST(MusrMinimizerBounds, AMinimumOnALowerBoundConverges) {
  // Unconstrained minimum at a = −1; a ≥ 0 holds it at 0, where A = 1 and B = −ρA minimises:
  // b = 2 − 0.3·0.5 = 1.85 and f = (1 − ρ²)A² = 0.75.
  Bowl bowl(-1.0, 2.0, 1.0, 0.3, 0.5);
  FitResult r = start(0.5, 1.0);
  r.params[0].lower = 0.0;
  migrad(bowl, r);
  EXPECT_EQ(r.params[0].value, 0.0);
  EXPECT_NEAR(r.params[1].value, 1.85, 1e-6);
  EXPECT_NEAR(r.fmin, 0.75, 1e-9);
  ASSERT_TRUE(r.hesse_ok);
  EXPECT_LT(r.edm, 1e-9);  // the outward gradient at a = 0 would give EDM = f_min = 0.75
  EXPECT_TRUE(r.converged);
  // HESSE's errors are those of the whole bowl: σ_a = σa/√(1 − ρ²), σ_b = σb/√(1 − ρ²).
  EXPECT_NEAR(r.params[0].error, 1.0 / std::sqrt(0.75), 1e-4);
  EXPECT_NEAR(r.params[1].error, 0.3 / std::sqrt(0.75), 1e-4);
}

TEST(MusrMinimizerBounds, AMinimumOnAnUpperBoundConverges) {
  Bowl bowl(1.0, 3.0, 1.0, 1.0, 0.0);  // b's minimum at 3, b ≤ 2
  FitResult r = start(0.0, 0.0);
  r.params[1].upper = 2.0;
  migrad(bowl, r);
  EXPECT_NEAR(r.params[0].value, 1.0, 1e-6);
  EXPECT_EQ(r.params[1].value, 2.0);
  EXPECT_NEAR(r.fmin, 1.0, 1e-9);
  EXPECT_TRUE(r.converged) << "EDM " << r.edm;
}

// A bounded parameter off its bound still counts: a fit stopped short of the minimum is not
// converged because a bound exists elsewhere.
TEST(MusrMinimizerBounds, ABoundedParameterOffItsBoundCounts) {
  Bowl bowl(1.0, 3.0, 1.0, 1.0, 0.3);
  FitResult r = start(1.0, 3.0);
  r.params[0].lower = 0.0;
  r.params[1].upper = 10.0;
  migrad(bowl, r);
  EXPECT_TRUE(r.converged);
  EXPECT_NEAR(r.params[0].value, 1.0, 1e-6);
  // The same state moved off the minimum: EDM is the bowl's ½ gᵀH⁻¹g = f there.
  r.params[0].value = 1.5;  // A = 0.5, B = 0: f = 0.25
  hesse(bowl, r);
  EXPECT_NEAR(r.edm, 0.25, 1e-6);
}

}  // namespace
}  // namespace tomo::musr
