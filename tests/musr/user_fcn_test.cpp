// User functions (compute/musr/user_fcn.hpp), the `.fcn` language itself: evaluation, calls of
// predefined theory functions, gradients, the built-ins against their formulas and the shipped
// example files, and the parser's errors on bad and damaged texts. The msr `userFcn` line and
// the fitted examples are in user_fcn_msr_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compute/core/error.hpp"
#include "compute/musr/user_fcn.hpp"

namespace tomo::musr::test {
namespace {

const std::filesystem::path kSource = TOMO_SOURCE_DIR;

// f(args) at t, with the arguments as parameters 0…n−1, and its gradient.
double eval(const UserFunction& f, std::vector<double> params, double t, std::vector<double>* grad = nullptr) {
  ProgramBuilder b(static_cast<int>(params.size()));
  std::vector<std::int32_t> args;
  for (int i = 0; i < static_cast<int>(params.size()); ++i) args.push_back(b.param(i));
  const Program p = b.finish(build_user_function(b, f, args, b.time()));
  ProgramEvaluator ev(p);
  ev.prepare(params, grad != nullptr);
  if (!grad) return ev.value(t);
  std::vector<double> d(ev.used().size());
  const double v = ev.value_and_gradient(t, d);
  grad->assign(params.size(), 0.0);
  for (std::size_t k = 0; k < d.size(); ++k) (*grad)[ev.used()[k]] = d[k];
  return v;
}

std::shared_ptr<const UserFunction> one(const std::string& text) {
  auto fs = parse_user_functions(text, "test.fcn");
  EXPECT_EQ(fs.size(), 1u);
  return fs.at(0);
}

std::string error_of(const std::string& text) {
  try {
    parse_user_functions(text, "test.fcn");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(MusrUserFcn, LanguageEvaluatesLetsConditionalsAndCalls) {
  auto f = one(R"(
# a comment
function F(a, b) {  // another
  let x = a * t - b;
  let y = x >= 0 ? sqrt(x) : -x;       # select on the sign
  return y + pow(t, 2) / 4 + abs(b) + min(a, b) * max(a, b) + j0(t) + log(exp(2)) + 1e-1;
}
)");
  EXPECT_EQ(f->name, "F");
  EXPECT_EQ(f->params, (std::vector<std::string>{"a", "b"}));
  for (double t : {0.1, 1.0, 3.0}) {
    const double a = 1.5, b = -0.7, x = a * t - b;
    const double y = x >= 0 ? std::sqrt(x) : -x;
    const double want = y + t * t / 4 + 0.7 + a * b + ::j0(t) + 2.0 + 0.1;
    EXPECT_NEAR(eval(*f, {a, b}, t), want, 1e-14 * std::fabs(want)) << t;
  }
  // The comparisons: a < b, a <= b, a > b, a >= b at and around equality.
  auto c = one("function C(a) { return (a < 1 ? 1 : 0) + (a <= 1 ? 10 : 0) + (a > 1 ? 100 : 0) + (a >= 1 ? 1000 : 0); }");
  EXPECT_EQ(eval(*c, {0.5}, 0.0), 11.0);
  EXPECT_EQ(eval(*c, {1.0}, 0.0), 1010.0);
  EXPECT_EQ(eval(*c, {1.5}, 0.0), 1100.0);
}

// Predefined THEORY functions by their full names, at t (tshift as on a THEORY line).
TEST(MusrUserFcn, CallsPredefinedTheoryFunctions) {
  auto f = one("function K(s, nu, ph) { return statGssKT(s) * TFieldCos(ph, nu, 0.1) + polynom(0, 1, 2) - simplExpo(s); }");
  for (double t : {0.0, 0.4, 2.5}) {
    const double s = 0.3, nu = 1.7, ph = 12.0, x = s * t;
    const double kt = 1.0 / 3.0 + 2.0 / 3.0 * (1 - x * x) * std::exp(-x * x / 2);
    const double tf = std::cos(ph * kPi / 180 + 2 * kPi * nu * (t - 0.1));
    EXPECT_NEAR(eval(*f, {s, nu, ph}, t), kt * tf + (1 + 2 * t) - std::exp(-s * t), 1e-14) << t;
  }
  EXPECT_EQ(error_of("function K(s) { return statGssKT(s, 1, 2); }"), "test.fcn:1:24: statGssKT() takes 1 to 2 arguments, got 3");
  EXPECT_EQ(error_of("function K(s) { return stg(s); }"), "test.fcn:1:24: unknown name 'stg'");
}

TEST(MusrUserFcn, GradientMatchesFiniteDifferences) {
  auto f = find_builtin_user_function("ZFMagExp");
  ASSERT_TRUE(f);
  const std::vector<double> p = {0.66, 2.3, 1.3, 0.1};
  for (double t : {0.05, 0.8, 4.0}) {
    std::vector<double> g;
    eval(*f, p, t, &g);
    for (std::size_t i = 0; i < p.size(); ++i) {
      auto q = p, r = p;
      const double h = 1e-6 * std::max(1.0, std::fabs(p[i]));
      q[i] += h;
      r[i] -= h;
      EXPECT_NEAR(g[i], (eval(*f, q, t) - eval(*f, r, t)) / (2 * h), 1e-7) << "t " << t << " d/dp" << i;
    }
  }
}

TEST(MusrUserFcn, BuiltinsFollowTheirFormulas) {
  const double t = 0.7;
  EXPECT_NEAR(eval(*find_builtin_user_function("PUserFcn"), {1.047, -0.1957, 0.0216, -0.00119}, t),
              1.047 - 0.1957 * t + 0.0216 * t * t - 0.00119 * t * t * t, 1e-15);
  auto dummy = find_builtin_user_function("PDummyUserFcn");
  EXPECT_DOUBLE_EQ(eval(*dummy, {0.32}, t), std::exp(-0.32 * t));
  EXPECT_EQ(eval(*dummy, {0.32}, -0.1), 1.0);
  EXPECT_EQ(eval(*dummy, {0.32}, 25.0), 0.0);
  const double w = 2 * kPi * 2.3;
  EXPECT_NEAR(eval(*find_builtin_user_function("ZFMagExp"), {0.66, 2.3, 1.3, 0.1}, t),
              0.66 * (std::cos(w * t) - 1.3 / w * std::sin(w * t)) * std::exp(-1.3 * t) + 0.34 * std::exp(-0.1 * t), 1e-15);
  const double sst = 0.9 * 0.9 * t;
  EXPECT_NEAR(eval(*find_builtin_user_function("ZFMagGss"), {0.66, 2.3, 0.9, 0.2}, t),
              0.66 * (std::cos(w * t) - sst / w * std::sin(w * t)) * std::exp(-0.5 * sst * t) +
                  0.34 * std::exp(-0.5 * 0.04 * t * t),
              1e-15);
  // ExpRlx: continuous at the pulse's end, e^(−λ(t − pulse)) after it, → 1 as λ → 0.
  auto rlx = find_builtin_user_function("ExpRlx");
  const double at_end = eval(*rlx, {4.0, 0.3}, 4.0);
  EXPECT_NEAR(eval(*rlx, {4.0, 0.3}, 4.0 + 1e-9), at_end, 1e-9);
  EXPECT_NEAR(eval(*rlx, {4.0, 0.3}, 6.0), at_end * std::exp(-0.3 * 2.0), 1e-14);
  EXPECT_NEAR(eval(*rlx, {4.0, 1e-9}, 2.0), 1.0, 1e-8);
  EXPECT_EQ(eval(*rlx, {4.0, 0.3}, -1.0), 0.0);
  EXPECT_EQ(find_builtin_user_function("NoSuchFcn"), nullptr);
}

// The example files under examples/ are the built-ins: the same program, node for node.
TEST(MusrUserFcn, ShippedExamplesEqualTheBuiltins) {
  for (const std::string name : {"PUserFcn", "PDummyUserFcn"}) {
    auto file = read_user_functions(kSource / "examples/musr_user_fcn" / (name + ".fcn"));
    ASSERT_EQ(file.size(), 1u);
    auto builtin = find_builtin_user_function(name);
    ASSERT_TRUE(builtin);
    auto program = [](const UserFunction& f) {
      ProgramBuilder b(static_cast<int>(f.params.size()));
      std::vector<std::int32_t> args;
      for (int i = 0; i < static_cast<int>(f.params.size()); ++i) args.push_back(b.param(i));
      return b.finish(build_user_function(b, f, args, b.time())).dump();
    };
    EXPECT_EQ(program(*file[0]), program(*builtin)) << name;
  }
}

// docs/musr.md's "User functions" snippet is the shipped example file, character for character.
TEST(MusrUserFcn, DocsSnippetIsTheShippedExample) {
  std::ostringstream doc, file;
  doc << std::ifstream(kSource / "docs/musr.md").rdbuf();
  file << std::ifstream(kSource / "examples/musr_user_fcn/PUserFcn.fcn").rdbuf();
  const std::string d = doc.str();
  const auto section = d.find("## User functions");
  ASSERT_NE(section, std::string::npos);
  const auto open = d.find("```fcn\n", section);
  ASSERT_NE(open, std::string::npos);
  const auto body = open + 7;
  const auto close = d.find("```", body);
  ASSERT_NE(close, std::string::npos);
  const std::string snippet = d.substr(body, close - body);
  EXPECT_EQ(snippet, file.str());
  EXPECT_EQ(parse_user_functions(snippet, "docs")[0]->name, "PUserFcn");
}

TEST(MusrUserFcn, ErrorsNameFileLineAndColumn) {
  EXPECT_EQ(error_of("function F(a) { return a * q; }"), "test.fcn:1:28: unknown name 'q'");
  EXPECT_EQ(error_of("function F(a) {\n  let x = x + 1;\n  return x; }"), "test.fcn:2:11: unknown name 'x'");
  EXPECT_EQ(error_of("function F(t) { return t; }"), "test.fcn:1:12: name 't' is a keyword, a function or already declared");
  EXPECT_EQ(error_of("function F(a, a) { return a; }"), "test.fcn:1:15: name 'a' is a keyword, a function or already declared");
  EXPECT_EQ(error_of("function F(a) { return a; }\nfunction F(b) { return b; }"), "test.fcn:2:28: function 'F' defined twice");
  EXPECT_EQ(error_of("function F(a) { return pow(a); }"), "test.fcn:1:24: pow() takes 2 arguments");
  EXPECT_EQ(error_of("function F(a) { return a > 1; }"), "test.fcn:1:29: expected '?', found ';'");
  EXPECT_EQ(error_of("function F(a) { return a"), "test.fcn:1:25: expected ';', found the end of the file");
  EXPECT_EQ(error_of("function F(a) { a = 1; }"), "test.fcn:1:17: expected 'let' or 'return', found 'a'");
  EXPECT_EQ(error_of("# nothing\n"), "test.fcn:2:1: no 'function' in the file");
  EXPECT_EQ(error_of("function F(a) { return 1e999; }"), "test.fcn:1:24: bad number");
  // Nesting is bounded (the parser and the lowering recurse per level).
  const std::string deep = "function F(a) { return " + std::string(1100, '(') + "a" + std::string(1100, ')') + "; }";
  EXPECT_NE(error_of(deep).find("nested more than 1000 deep"), std::string::npos) << error_of(deep);
  // So is a chain: each operator deepens the tree the lowering walks.
  std::string chain = "function F(a) { return a";
  for (int i = 0; i < 1200; ++i) chain += " + a";
  EXPECT_NE(error_of(chain + "; }").find("nested more than 1000 deep"), std::string::npos);
  chain.resize(std::string("function F(a) { return a").size() + 4 * 500);
  EXPECT_DOUBLE_EQ(eval(*one(chain + "; }"), {0.5}, 0.0), 250.5);
  // abs/min/max use their operand twice without copying it: 60 nested calls stay small.
  std::string nested = "a";
  for (int i = 0; i < 60; ++i) nested = (i % 2 ? "abs(" : "max(-1, ") + nested + ")";
  auto f = one("function F(a) { return " + nested + "; }");
  ProgramBuilder b(1);
  const Program p = b.finish(build_user_function(b, *f, std::vector<std::int32_t>{b.param(0)}, b.time()));
  EXPECT_LT(p.nodes.size(), 300u);
  EXPECT_DOUBLE_EQ(evaluate(p, std::vector<double>{-0.25}, 0.0), 0.25);
}

// Damaged texts (bytes replaced, inserted, cut) either parse or throw InputError: no other
// exception, no crash, no unbounded recursion.
TEST(MusrUserFcn, DamagedTextsParseOrFailWithInputError) {
  const std::string good = R"(function F(a, b) {
  let x = a * t - b;   # comment
  return x >= 0 ? sqrt(x) * statGssKT(a) : -pow(x, 2) + min(a, b);
}
)";
  const std::string bytes = "(){};,?:<>=+-*/#.0123456789eEatxfunctionletreturn \n\t\x01\xff";
  std::uint64_t state = 12345;
  auto next = [&] { return state = state * 6364136223846793005ULL + 1442695040888963407ULL, state >> 33; };
  int parsed = 0, refused = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string s = good;
    for (int k = 0, n = 1 + static_cast<int>(next() % 4); k < n; ++k) {
      const auto at = static_cast<std::size_t>(next() % (s.size() + 1));
      const char c = bytes[next() % bytes.size()];
      switch (next() % 3) {
        case 0: if (at < s.size()) s[at] = c; break;
        case 1: s.insert(at, 1, c); break;
        default: s.resize(at); break;
      }
    }
    try {
      auto fs = parse_user_functions(s, "damaged.fcn");
      for (const auto& f : fs) {
        ProgramBuilder b(static_cast<int>(f->params.size()));
        std::vector<std::int32_t> args;
        for (int j = 0; j < static_cast<int>(f->params.size()); ++j) args.push_back(b.param(j));
        b.finish(build_user_function(b, *f, args, b.time()));
      }
      ++parsed;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("damaged.fcn:", 0), 0u) << e.what();
      ++refused;
    }
  }
  EXPECT_GT(parsed, 30);
  EXPECT_GT(refused, 1000);
}

}  // namespace
}  // namespace tomo::musr::test
