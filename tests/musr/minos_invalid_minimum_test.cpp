// MINOS on a minimum HESSE cannot confirm: a χ² flat along a valley has no positive-definite
// Hessian, so there is no Δf = Up to scan for; MINOS leaves the errors unset and returns at once
// instead of running profile fits along the valley.
#include <gtest/gtest.h>

#include "compute/musr/minimizer.hpp"

namespace tomo::musr {
namespace {

// f(a, b) = (a + b − 1)²: the whole line a + b = 1 is a minimum.
class Valley final : public Chi2Evaluator {
 public:
  std::string describe() const override { return "valley"; }
  void synchronize() override {}
  void configure(const EvaluatorOptions&) override {}
  void upload(const FitData&) override {}
  double evaluate(std::span<const double> p) override {
    ++calls;
    const double d = p[0] + p[1] - 1.0;
    return d * d;
  }
  double evaluate_with_gradient(std::span<const double> p, std::span<double> g) override {
    const double f = evaluate(p);
    const double d = p[0] + p[1] - 1.0;
    g[0] = g[1] = 2.0 * d;
    return f;
  }
  int calls = 0;
};

FitResult valley_result() {
  FitResult r;
  for (const char* name : {"a", "b"}) {
    FitParameterState s;
    s.name = name;
    s.value = 0.5;
    s.step = 0.1;
    s.free = true;
    r.params.push_back(s);
  }
  return r;
}

TEST(MusrMinos, AnInvalidMinimumIsNotScanned) {
  Valley v;
  FitResult r = valley_result();
  hesse(v, r);
  ASSERT_FALSE(r.hesse_ok);
  const int before = v.calls;
  minos(v, r);
  EXPECT_FALSE(r.params[0].minos_minus || r.params[0].minos_plus);
  EXPECT_FALSE(r.params[1].minos_minus || r.params[1].minos_plus);
  EXPECT_LT(v.calls - before, 50) << "MINOS evaluated the flat valley";
}

}  // namespace
}  // namespace tomo::musr
