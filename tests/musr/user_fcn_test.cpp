// User functions (compute/musr/user_fcn.hpp): the `.fcn` language, its errors, the msr
// `userFcn` line, the built-ins against their formulas, and musrfit's UserFcnWithGlobal example
// fitted on cpu and evaluated on gl-compute (llvmpipe) against its stored STATISTIC.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/musr/fit_setup.hpp"
#include "compute/musr/minimizer.hpp"
#include "compute/musr/msr.hpp"
#include "compute/musr/user_fcn.hpp"
#include "tests/musr/gpu_test_data.hpp"

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

// A folder with an msr file whose THEORY is `theory`, and optionally a `.fcn` file.
struct MsrDir {
  std::filesystem::path dir;
  MsrDir(const std::string& name, const std::string& theory) {
    dir = std::filesystem::temp_directory_path() / ("tomo_user_fcn_" + name);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "a.msr") << "title\nFITPARAMETER\n 1 a 1.0 0.1\n 2 b 0.5 0.1\nTHEORY\n" << theory
                                 << "\nRUN x PIE1 PSI PSI-BIN\nfittype 0\nnorm 1\nforward 1\n";
  }
  void write(const std::string& file, const std::string& text) const { std::ofstream(dir / file) << text; }
  std::string error() const {
    try {
      read_msr(dir / "a.msr");
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  }
  ~MsrDir() { std::filesystem::remove_all(dir); }
};

TEST(MusrUserFcn, MsrLineResolvesFileBesideThenBuiltin) {
  {  // The built-in, with musrfit's library token.
    MsrDir d("builtin", "userFcn libZFRelaxation.so ZFMagExp 1 2 1 2");
    const MsrFile m = read_msr(d.dir / "a.msr");
    ASSERT_EQ(m.theory.size(), 1u);
    ASSERT_TRUE(m.theory[0][0].user);
    EXPECT_EQ(m.theory[0][0].user->name, "ZFMagExp");
    EXPECT_EQ(m.theory[0][0].args.size(), 4u);
  }
  {  // <ClassName>.fcn beside the msr file wins over a built-in of that name.
    MsrDir d("beside", "userFcn libPUserFcn PUserFcn 1 2");
    d.write("PUserFcn.fcn", "function PUserFcn(x, y) { return x - y * t; }");
    const MsrFile m = read_msr(d.dir / "a.msr");
    EXPECT_EQ(m.theory[0][0].user->params.size(), 2u);
    ProgramBuilder b(2);
    const Program p = b.finish(build_theory(m, m.runs[0], b));
    EXPECT_DOUBLE_EQ(evaluate(p, std::vector<double>{1.0, 0.5}, 3.0), 1.0 - 0.5 * 3.0);
  }
  {  // A ported library: libMine.so → libMine.fcn beside the msr file, several functions.
    MsrDir d("library", "userFcn libMine.so G 1");
    d.write("libMine.fcn", "function F(a) { return a; }\nfunction G(a) { return 3 * a; }");
    const MsrFile m = read_msr(d.dir / "a.msr");
    EXPECT_EQ(m.theory[0][0].user->name, "G");
    EXPECT_EQ(m.theory[0][0].user->where, (d.dir / "libMine.fcn").string() + ":2");
  }
  {  // An explicit .fcn library with several functions.
    MsrDir d("explicit", "simplExpo 2\nuserFcn mine.fcn G 1");
    d.write("mine.fcn", "function F(a) { return a; }\nfunction G(a) { return 2 * a; }");
    const MsrFile m = read_msr(d.dir / "a.msr");
    ProgramBuilder b(2);
    const Program p = b.finish(build_theory(m, m.runs[0], b));
    EXPECT_DOUBLE_EQ(evaluate(p, std::vector<double>{1.5, 0.5}, 2.0), std::exp(-1.0) * 3.0);
  }
}

TEST(MusrUserFcn, MsrLineErrorsNameTheFiles) {
  const auto where = [](const MsrDir& d) { return (d.dir / "a.msr").string(); };
  {
    MsrDir d("arity", "userFcn libPUserFcn PUserFcn 1 2 1");
    EXPECT_EQ(d.error(), where(d) + ":6: userFcn PUserFcn (built-in user function PUserFcn:2) takes 4 arguments, got 3");
  }
  {
    MsrDir d("missing", "userFcn libFoo Foo 1");
    EXPECT_EQ(d.error(), where(d) + ":6: userFcn 'Foo' (libFoo) not found: no " + (d.dir / "Foo.fcn").string() + ", no " +
                             (d.dir / "libFoo.fcn").string() + " and no built-in of that name (built-ins: PUserFcn, PDummyUserFcn, ZFMagExp, ZFMagGss, ExpRlx)");
  }
  {
    MsrDir d("nofile", "userFcn gone.fcn Foo 1");
    EXPECT_NE(d.error().find((d.dir / "gone.fcn").string()), std::string::npos) << d.error();
  }
  {
    MsrDir d("wrongname", "userFcn mine.fcn Foo 1");
    d.write("mine.fcn", "function Bar(a) { return a; }");
    EXPECT_EQ(d.error(), where(d) + ":6: " + (d.dir / "mine.fcn").string() + ": no function 'Foo' (the file defines Bar)");
  }
  {
    MsrDir d("syntax", "userFcn libX Broken 1");
    d.write("Broken.fcn", "function Broken(a) {\n  return a +; }");
    EXPECT_EQ(d.error(), where(d) + ":6: " + (d.dir / "Broken.fcn").string() + ":2:13: expected an operand, found ';'");
  }
  {
    MsrDir d("folder", "userFcn libX Dir 1");
    std::filesystem::create_directories(d.dir / "Dir.fcn");
    EXPECT_NE(d.error().find("Dir.fcn"), std::string::npos) << d.error();
  }
  {
    MsrDir d("param", "userFcn libPDummyUserFcn PDummyUserFcn 7");
    EXPECT_EQ(d.error(), where(d) + ":6: parameter 7 does not exist");
  }
}

// musrfit's UserFcnWithGlobal example. Its STATISTIC (663.9, NDF 515) belongs to packing 25:
// the file is test-histo-PSI-BIN.msr with `simplExpo 2` replaced by the user function and the
// packing set to 1 without a new fit. At packing 25 the user function gives musrfit's numbers;
// as written, the same χ² as simplExpo.
struct Fitted {
  double chi2 = 0.0;
  int ndf = 0;
  FitData data;
  std::vector<double> params;
};
Fitted fit_text(const std::string& text, const std::filesystem::path& path) {
  MsrFile msr = parse_msr(text, path.string());
  msr.path = path;
  FitSetup s = prepare_fit(msr, [&](const MsrRun& r) { return load_run_data(msr, r); });
  auto ev = BackendRegistry<Chi2Evaluator>::instance().create("cpu");
  ev->configure({});
  ev->upload(s.data);
  FitResult r = run_fit(*ev, msr, s.used, s.data.statistic);
  Fitted out{r.fmin, static_cast<int>(s.data.bins()) - r.free_count(), s.data, {}};
  for (const auto& p : r.params) out.params.push_back(p.value);
  return out;
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? s : s.replace(at, from.size(), to);
}

TEST(MusrUserFcn, UserFcnWithGlobalExampleMatchesMusrfit) {
  const auto path = kSource / "tests/musr/musrfit/UserFcnWithGlobal/test-histo-PSI-BIN-UserFcn.msr";
  std::ostringstream os;
  os << std::ifstream(path).rdbuf();
  const std::string text = os.str();
  const MsrFile msr = read_msr(path);
  ASSERT_TRUE(msr.statistic);
  ASSERT_EQ(msr.theory[0][1].user->name, "PDummyUserFcn");

  const Fitted packed = fit_text(replace(text, "packing         1", "packing         25"), path);
  EXPECT_NEAR(packed.chi2, 663.9, 663.9 * 1e-3);
  EXPECT_EQ(packed.ndf, 515);

  const Fitted as_written = fit_text(text, path);
  const Fitted simpl = fit_text(replace(text, "userFcn libPDummyUserFcn   PDummyUserFcn    2", "simplExpo 2"), path);
  EXPECT_EQ(as_written.ndf, 13105);
  EXPECT_NEAR(as_written.chi2, simpl.chi2, 1e-9 * simpl.chi2);

  // gl-compute (llvmpipe here) on the same bins, away from the minimum so that every gradient
  // entry is clearly non-zero: double within 1e-9 of cpu, float within 1e-5.
  const std::vector<double> p = perturbed(packed.params);
  for (bool single : {false, true}) {
    auto gl = make_evaluator("gl-compute", packed.data, single);
    auto cpu = make_evaluator("cpu", packed.data, false);
    const double want = cpu->evaluate(p);
    EXPECT_NEAR(gl->evaluate(p), want, (single ? 1e-5 : 1e-9) * want) << (single ? "float" : "double");
    std::vector<double> g(p.size()), gc(p.size());
    gl->evaluate_with_gradient(p, g);
    cpu->evaluate_with_gradient(p, gc);
    const double scale = max_abs(gc);
    for (std::size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], gc[i], (single ? 1e-3 : 1e-8) * scale) << "d/dp" << i;
  }
}

// The worked example under examples/: musrfit's msr at packing 25 with the user function from
// the .fcn file beside it, fitted as a user would: musrfit's 663.9, NDF 515.
TEST(MusrUserFcn, WorkedExampleFitsToMusrfitsStatistic) {
  const auto path = kSource / "examples/musr_user_fcn/test-histo-PSI-BIN-fcn.msr";
  std::ostringstream os;
  os << std::ifstream(path).rdbuf();
  const MsrFile msr = read_msr(path);
  EXPECT_EQ(msr.theory[0][1].user->where, (kSource / "examples/musr_user_fcn/PDummyUserFcn.fcn").string() + ":5");
  const Fitted f = fit_text(os.str(), path);
  EXPECT_NEAR(f.chi2, 663.9, 663.9 * 1e-3);
  EXPECT_EQ(f.ndf, 515);
}

// libBNMR's ExpRlx example (MUD, asymmetry) with the built-in ExpRlx: musrfit's parameters to
// 0.1 σ, its NDF, and its χ² within 0.3 % (+0.17 %: the asymmetry background convention).
TEST(MusrUserFcn, ExpRlxExampleMatchesMusrfitsParameters) {
  const auto path = kSource / "tests/musr/musrfit/BNMRlibs/test-ExpRlx-hel.msr";
  std::ostringstream os;
  os << std::ifstream(path).rdbuf();
  const Fitted f = fit_text(os.str(), path);
  EXPECT_EQ(f.ndf, 346);
  EXPECT_NEAR(f.chi2, 566.6, 566.6 * 3e-3);
  const double want[][2] = {{1.11592, 0.00035}, {0.05868, 0.00091}, {1.0, 0.0}, {1.142, 0.023}, {1.0, 0.0}, {-1.048, 0.022}};
  ASSERT_EQ(f.params.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i) EXPECT_NEAR(f.params[i], want[i][0], 0.1 * want[i][1] + 1e-12) << "parameter " << i + 1;
}

// musrfit's UserFcn example (MUD, asymmetry, PUserFcn): the same χ² as `polynom` in its place
// (its remaining gap to musrfit's STATISTIC is the MUD asymmetry example's), NDF 97.
TEST(MusrUserFcn, UserFcnExampleEqualsPolynom) {
  const auto path = kSource / "tests/musr/musrfit/UserFcn/test-asy-MUD.msr";
  std::ostringstream os;
  os << std::ifstream(path).rdbuf();
  const std::string text = os.str();
  auto chi2 = [&](const std::string& t, int& ndf) {
    MsrFile msr = parse_msr(t, path.string());
    msr.path = path;
    const FitSetup s = prepare_fit(msr, [&](const MsrRun& r) { return load_run_data(msr, r); });
    std::vector<double> p;
    int free = 0;
    for (std::size_t i = 0; i < msr.params.size(); ++i) {
      p.push_back(msr.params[i].value);
      free += !msr.params[i].fixed() && s.used[i];
    }
    ndf = static_cast<int>(s.data.bins()) - free;
    return make_evaluator("cpu", s.data, false)->evaluate(p);
  };
  int ndf_user = 0, ndf_poly = 0;
  const double user = chi2(text, ndf_user);
  std::string poly = replace(text, "userFcn  libPUserFcn PUserFcn 3 4 5 6", "polynom 7 3 4 5 6");
  poly = replace(poly, "        6 c3          -0.00119  0.00011     none        \n",
                 "        6 c3          -0.00119  0.00011     none        \n        7 zero 0 0\n");
  EXPECT_EQ(ndf_user, 97);
  EXPECT_NEAR(chi2(poly, ndf_poly), user, 1e-12 * user);
  EXPECT_EQ(ndf_poly, 97);
}

// A user function that is not finite at the start values: one error naming its file and line.
TEST(MusrUserFcn, NotFiniteAtStartValuesIsAnInputError) {
  const auto path = kSource / "tests/musr/musrfit/UserFcnWithGlobal/test-histo-PSI-BIN-UserFcn.msr";
  std::ostringstream os;
  os << std::ifstream(path).rdbuf();
  MsrDir d("nan", "");
  d.write("NanF.fcn", "# zero over zero\nfunction NanF(lambda) { return t > 1 ? 0 * lambda / 0 : 1; }\n");
  std::string text = replace(os.str(), "userFcn libPDummyUserFcn   PDummyUserFcn    2", "userFcn libX NanF 2");
  const std::string data = (kSource / "tests/musr/musrfit/data").string();
  text = replace(replace(text, "../data", data), "../data", data);
  const auto where = d.dir / "n.msr";
  MsrFile msr = parse_msr(text, where.string());
  msr.path = where;
  std::string err = "no error";
  try {
    prepare_fit(msr, [&](const MsrRun& r) { return load_run_data(msr, r); });
  } catch (const InputError& e) {
    err = e.what();
  }
  const std::string head = (d.dir / "NanF.fcn").string() + ":2: user function NanF is ";
  EXPECT_EQ(err.substr(0, head.size()), head) << err;
  EXPECT_NE(err.find("nan at t = 1.0"), std::string::npos) << err;
  EXPECT_NE(err.find(" µs of RUN 1 (msr line 18) with the start values of FITPARAMETER"), std::string::npos) << err;
}

}  // namespace
}  // namespace tomo::musr::test
