// The expression program: every predefined THEORY function against hand-computed values,
// FUNCTIONS parsing (good and bad), folding/sharing, and forward-mode gradients vs finite
// differences.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/musr/expression.hpp"

namespace tomo::musr {
namespace {

// fn(params[0..n-1]) at time t, params as parameters 0..n-1.
double theory_at(std::string_view name, std::vector<double> params, double t) {
  const auto* info = find_theory_function(name);
  EXPECT_NE(info, nullptr) << name;
  ProgramBuilder b(static_cast<int>(params.size()));
  std::vector<std::int32_t> args;
  for (int i = 0; i < static_cast<int>(params.size()); ++i) args.push_back(b.param(i));
  auto p = b.finish(build_theory_function(b, info->fn, args, b.time()));
  return evaluate(p, params, t);
}

TEST(MusrTheory, PredefinedFunctionsMatchHandValues) {
  const double t = 0.7;
  EXPECT_DOUBLE_EQ(theory_at("a", {0.25}, t), 0.25);
  EXPECT_DOUBLE_EQ(theory_at("const", {3.0}, t), 3.0);
  EXPECT_NEAR(theory_at("se", {0.4}, t), std::exp(-0.28), 1e-15);
  EXPECT_NEAR(theory_at("simplExpo", {0.4, 0.2}, t), std::exp(-0.4 * 0.5), 1e-15);  // tshift
  EXPECT_NEAR(theory_at("ge", {0.4, 1.5}, t), std::exp(-std::pow(0.28, 1.5)), 1e-15);
  EXPECT_DOUBLE_EQ(theory_at("ge", {0.4, 1.5}, -0.1), 0.0);  // musrfit: 0 for λt < 0
  EXPECT_NEAR(theory_at("sg", {0.5}, t), std::exp(-0.5 * 0.35 * 0.35), 1e-15);
  {  // statGssKT σ = 0.5: ⅓ + ⅔(1 − 0.1225)e^(−0.06125)
    const double s2 = 0.35 * 0.35;
    EXPECT_NEAR(theory_at("stg", {0.5}, t), 1.0 / 3.0 + 2.0 / 3.0 * (1 - s2) * std::exp(-s2 / 2), 1e-15);
    EXPECT_NEAR(theory_at("STATGSSKT", {0.5}, 0.0), 1.0, 1e-15);
  }
  EXPECT_NEAR(theory_at("sekt", {0.4}, t), 1.0 / 3.0 + 2.0 / 3.0 * (1 - 0.28) * std::exp(-0.28), 1e-15);
  EXPECT_NEAR(theory_at("lgkt", {0.4, 0.5}, t),
              1.0 / 3.0 + 2.0 / 3.0 * (1 - 0.28 - 0.1225) * std::exp(-0.28 - 0.5 * 0.1225), 1e-15);
  {
    const double x = std::pow(0.35, 1.7);
    EXPECT_NEAR(theory_at("skt", {0.5, 1.7}, t), 1.0 / 3.0 + 2.0 / 3.0 * (1 - x) * std::exp(-x / 1.7), 1e-15);
  }
  EXPECT_NEAR(theory_at("ab", {0.3, 2.0}, t),
              std::exp(-(0.15 * 0.15) * (std::exp(-1.4) - 1 + 1.4)), 1e-15);
  const double ph = 30.0 * M_PI / 180.0 + 2 * M_PI * 1.3 * t;
  EXPECT_NEAR(theory_at("tf", {30.0, 1.3}, t), std::cos(ph), 1e-14);
  EXPECT_NEAR(theory_at("TFieldCos", {30.0, 1.3, 0.1}, t), std::cos(30.0 * M_PI / 180 + 2 * M_PI * 1.3 * 0.6), 1e-14);
  EXPECT_NEAR(theory_at("b", {30.0, 1.3}, t), std::cyl_bessel_j(0.0, ph), 1e-14);
  EXPECT_NEAR(theory_at("if", {0.6, 30.0, 1.3, 0.8, 0.1}, t),
              0.6 * std::cos(ph) * std::exp(-0.56) + 0.4 * std::exp(-0.07), 1e-14);
  EXPECT_NEAR(theory_at("ib", {0.6, 30.0, 1.3, 0.8, 0.1}, t),
              0.6 * std::cyl_bessel_j(0.0, ph) * std::exp(-0.56) + 0.4 * std::exp(-0.07), 1e-14);
  // polynom tshift p0 p1 p2: 1 + 2x + 3x², x = t − 0.2
  EXPECT_NEAR(theory_at("p", {0.2, 1.0, 2.0, 3.0}, t), 1 + 2 * 0.5 + 3 * 0.25, 1e-14);
}

TEST(MusrTheory, WrongArgumentCountIsAnInputError) {
  ProgramBuilder b(3);
  std::vector<std::int32_t> one{b.param(0)};
  EXPECT_THROW(build_theory_function(b, TheoryFn::intern_fld, one, b.time()), InputError);
  EXPECT_EQ(find_theory_function("nosuch"), nullptr);
  EXPECT_THROW(b.param(3), InputError);
}

struct TestResolver : ExprResolver {
  ProgramBuilder& b;
  std::vector<int> map_entries;
  explicit TestResolver(ProgramBuilder& bb) : b(bb) {}
  std::int32_t param(int n) override { return b.param(n - 1); }
  std::int32_t map(int n) override { return b.param(map_entries.at(static_cast<std::size_t>(n - 1)) - 1); }
  std::int32_t fun(int) override { throw InputError("no functions here"); }
};

double eval_text(std::string_view text, std::vector<double> params) {
  ProgramBuilder b(static_cast<int>(params.size()));
  TestResolver r(b);
  r.map_entries = {2, 1};
  auto p = b.finish(lower_expression(*parse_expression(text), b, r));
  return evaluate(p, params, 0.0);
}

TEST(MusrFunctions, ParsesMusrfitGrammar) {
  std::vector<double> p{2.0, -3.0, 0.5};
  EXPECT_DOUBLE_EQ(eval_text("par1 + par2 * par3", p), 2.0 - 1.5);
  EXPECT_DOUBLE_EQ(eval_text("(par1 + par2) * par3", p), -0.5);
  EXPECT_DOUBLE_EQ(eval_text("-par1 - -par2", p), -5.0);
  EXPECT_DOUBLE_EQ(eval_text("par1/par3/2", p), 2.0);
  EXPECT_DOUBLE_EQ(eval_text("map1 * 10", p), -30.0);
  EXPECT_NEAR(eval_text("gamma_mu * 100.0", p), 1.355388094, 1e-15);
  EXPECT_NEAR(eval_text("2*PI", p), 2 * M_PI, 1e-15);
  EXPECT_NEAR(eval_text("log(par2)", p), std::log10(3.0), 1e-15);  // log10 |x|
  EXPECT_NEAR(eval_text("ln(par2)", p), std::log(3.0), 1e-15);
  EXPECT_NEAR(eval_text("SQRT(par2)", p), std::sqrt(3.0), 1e-15);
  EXPECT_NEAR(eval_text("pow(par1, par3)", p), std::sqrt(2.0), 1e-15);
  EXPECT_NEAR(eval_text("cos(par3)*sin(par3)+tanh(par3)+atan(par1)+exp(par3)", p),
              std::cos(0.5) * std::sin(0.5) + std::tanh(0.5) + std::atan(2.0) + std::exp(0.5), 1e-15);
  EXPECT_NEAR(eval_text("1.5e-2 * 4", p), 0.06, 1e-15);
}

TEST(MusrFunctions, RejectsBadExpressionsNamingTheToken) {
  for (const char* bad : {"par1 +", "par0", "parx", "foo(par1)", "cos par1", "(par1", "par1 par2", "pow(par1)",
                          "1..2", "par1 ^ 2", "", "map"}) {
    try {
      eval_text(bad, {1.0, 2.0, 3.0});
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("column"), std::string::npos) << e.what();
    }
  }
}

TEST(MusrProgram, FoldsConstantsAndSharesSubexpressions) {
  ProgramBuilder b(2);
  auto t = b.time();
  auto x = b.mul(b.param(0), t);
  auto y = b.mul(t, b.param(0));  // same node (commutative)
  EXPECT_EQ(x, y);
  auto c = b.mul(b.constant(2.0), b.constant(3.0));
  auto p = b.finish(b.add(x, c));
  EXPECT_EQ(p.nodes.size(), 5u);  // param, time, mul, const 6, add
  EXPECT_EQ(p.params_used(), std::vector<int>{0});
  EXPECT_DOUBLE_EQ(evaluate(p, std::vector<double>{1.5, 9.0}, 2.0), 9.0);
}

TEST(MusrProgram, GradientsMatchFiniteDifferences) {
  // A theory touching every op with a derivative: each predefined function × FUNCTIONS.
  const std::vector<double> params{0.21, 0.43, 1.37, 25.0, 0.8, 0.6, 0.12, 1.6};
  ProgramBuilder b(static_cast<int>(params.size()));
  TestResolver r(b);
  auto t = b.time();
  auto P = [&](int i) { return b.param(i); };
  auto term = [&](TheoryFn fn, std::vector<std::int32_t> a) { return build_theory_function(b, fn, a, t); };
  std::int32_t acc = b.constant(0.0);
  acc = b.add(acc, b.mul(P(0), term(TheoryFn::simpl_expo, {P(1)})));
  acc = b.add(acc, term(TheoryFn::gener_expo, {P(1), P(7)}));
  acc = b.add(acc, b.mul(term(TheoryFn::stat_gss_kt, {P(2)}), term(TheoryFn::tfield_cos, {P(3), P(4)})));
  acc = b.add(acc, term(TheoryFn::combi_lgkt, {P(1), P(2)}));
  acc = b.add(acc, term(TheoryFn::str_kt, {P(2), P(7)}));
  acc = b.add(acc, term(TheoryFn::abragam, {P(2), P(4)}));
  acc = b.add(acc, term(TheoryFn::intern_bsl, {P(5), P(3), P(4), P(1), P(6), P(6)}));
  acc = b.add(acc, term(TheoryFn::stat_exp_kt, {P(6)}));
  acc = b.add(acc, lower_expression(*parse_expression("pow(par3, par8) + sqrt(par1) + ln(par2) + log(par5)"
                                                      " + sinh(par7) + cosh(par7) + asinh(par6) + acosh(par3)"
                                                      " + atanh(par6) + acos(par6) + asin(par6) + tan(par1)"),
                                     b, r));
  auto p = b.finish(acc);
  ProgramEvaluator ev(p);
  for (double tt : {0.05, 0.9, 3.3}) {
    ev.prepare(params, true);
    std::vector<double> g(ev.used().size());
    const double v = ev.value_and_gradient(tt, g);
    EXPECT_NEAR(v, evaluate(p, params, tt), 1e-13);
    for (std::size_t k = 0; k < ev.used().size(); ++k) {
      const int i = ev.used()[k];
      const double h = 1e-6 * std::max(1.0, std::fabs(params[i]));
      auto pp = params, pm = params;
      pp[i] += h;
      pm[i] -= h;
      const double fd = (evaluate(p, pp, tt) - evaluate(p, pm, tt)) / (2 * h);
      EXPECT_NEAR(g[k], fd, 1e-6 * std::max(1.0, std::fabs(fd))) << "param " << i + 1 << " t " << tt;
    }
  }
}

}  // namespace
}  // namespace tomo::musr
