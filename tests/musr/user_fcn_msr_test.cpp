// User functions in msr files: the `userFcn` line (the file beside the msr, a ported library,
// then a built-in) and its errors, and musrfit's user-function examples fitted on cpu (and on
// gl-compute, llvmpipe here) against their stored STATISTIC and parameters. The `.fcn` language
// itself is tested in user_fcn_test.cpp.
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
