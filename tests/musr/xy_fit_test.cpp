// fittype 8 (non-μSR x-y data, musrfit's PRunNonMusr): the points a RUN's xy-data columns give,
// the fit range in x, packing, χ² over points, a fit that recovers the simulated parameters,
// gl-compute equal to cpu, and the suite's ASCII and DB files through the same path.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/musr/fit_setup.hpp"
#include "compute/musr/minimizer.hpp"
#include "compute/musr/xy_data.hpp"
#include "compute/musr/xy_fit.hpp"
#include "tests/musr/gpu_test_data.hpp"
#include "tests/musr/xy_test_data.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::musr {
namespace {

std::filesystem::path suite() {
  const char* e = std::getenv("TOMO_SOURCE_DIR");
  return (e && *e ? std::filesystem::path(e) : std::filesystem::path(TOMO_SOURCE_DIR)) / "tests/musr/musrfit";
}

FitSetup prepare(const MsrFile& msr) {
  return prepare_fit(msr, [&](const MsrRun& r) { return load_run_data(msr, r); });
}

std::string refusal(const auto& call) {
  try {
    call();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(MusrXyFit, PointsAreTheColumnsWithinTheFitRangeInX) {
  tomo::test::TempDir tmp("musr-xy-fit");
  const MsrFile msr = test::write_xy_case(tmp.dir, 5);
  const FitSetup s = prepare(msr);
  ASSERT_EQ(s.data.runs.size(), 1u);
  EXPECT_EQ(s.data.statistic, Statistic::chi2);
  EXPECT_EQ(s.runs[0].fittype, 8);
  const auto& r = s.data.runs[0];
  std::size_t n = 0;
  for (int k = 0; k < 60; ++k) n += test::xy_x(k) >= 0.5 && test::xy_x(k) <= 11.0;
  ASSERT_EQ(r.t.size(), n);
  EXPECT_DOUBLE_EQ(r.t.front(), test::xy_x(2));
  EXPECT_DOUBLE_EQ(r.sigma.front(), test::xy_sigma(2));
  // χ² = Σ (y − θ(x))²/σ² with θ = A e^(−λx) + c written out here.
  auto ev = test::make_evaluator("cpu", s.data, false);
  const std::vector<double> p = {4.5, 0.6, 1.1};
  double want = 0.0;
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double d = (r.y[k] - (p[0] * std::exp(-p[1] * r.t[k]) + p[2])) / r.sigma[k];
    want += d * d;
  }
  EXPECT_NEAR(ev->evaluate(p), want, 1e-12 * want);
}

TEST(MusrXyFit, PackingSumsYAndAddsErrorsInQuadratureAsMusrfit) {
  tomo::test::TempDir tmp("musr-xy-pack");
  const MsrFile msr = test::write_xy_case(tmp.dir, 5, 3);
  const XyData d = load_xy_data(msr, msr.runs[0]);
  RunInfo info;
  const RunBins b = xy_run_bins(msr, msr.runs[0], d, info);
  EXPECT_EQ(info.packing, 3);
  // Pack j (emitted at i = 3(j+1)) holds points 3j … 3j+2 at x_i − (x_i − x_{i−3})/2.
  const auto& x = d.columns[0].values;
  const auto& y = d.columns[1].values;
  const auto& e = d.columns[1].errors;
  std::vector<double> px, py, pe;
  for (int j = 0; 3 * (j + 1) < 60; ++j) {
    const int i = 3 * (j + 1);
    const double xx = x[i] - (x[i] - x[i - 3]) / 2.0;
    if (xx < 0.5 || xx > 11.0) continue;
    px.push_back(xx);
    py.push_back(y[i - 3] + y[i - 2] + y[i - 1]);
    pe.push_back(std::sqrt(e[i - 3] * e[i - 3] + e[i - 2] * e[i - 2] + e[i - 1] * e[i - 1]));
  }
  ASSERT_EQ(b.t.size(), px.size());
  for (std::size_t k = 0; k < px.size(); ++k) {
    EXPECT_DOUBLE_EQ(b.t[k], px[k]);
    EXPECT_NEAR(b.y[k], py[k], 1e-12);
    EXPECT_NEAR(b.sigma[k], pe[k], 1e-12);
  }
}

TEST(MusrXyFit, FitRecoversTheSimulatedParametersWithinErrors) {
  const test::XyTruth truth;
  for (unsigned seed : {21u, 22u, 23u}) {
    tomo::test::TempDir tmp("musr-xy-recover");
    const MsrFile msr = test::write_xy_case(tmp.dir, seed);
    const FitSetup s = prepare(msr);
    auto ev = test::make_evaluator("cpu", s.data, false);
    const FitResult r = run_fit(*ev, msr, s.used, s.data.statistic);
    ASSERT_TRUE(r.converged) << "seed " << seed;
    const double ndf = static_cast<double>(s.data.bins()) - r.free_count();
    EXPECT_EQ(ndf, 53 - 3);
    EXPECT_NEAR(r.fmin / ndf, 1.0, 5.0 * std::sqrt(2.0 / ndf)) << "seed " << seed;
    const double want[] = {truth.a, truth.lambda, truth.c};
    for (int i = 0; i < 3; ++i) {
      EXPECT_GT(r.params[i].error, 0.0);
      EXPECT_LT(std::fabs(r.params[i].value - want[i]) / r.params[i].error, 4.0)
          << msr.params[i].name << " " << r.params[i].value << " ± " << r.params[i].error << " seed " << seed;
    }
  }
}

TEST(MusrXyFit, GlComputeEqualsCpu) {
  tomo::test::TempDir tmp("musr-xy-gl");
  const FitSetup s = prepare(test::write_xy_case(tmp.dir, 7));
  ASSERT_TRUE(BackendRegistry<Chi2Evaluator>::instance().available("gl-compute").ok);
  auto cpu = test::make_evaluator("cpu", s.data, false);
  auto gl = test::make_evaluator("gl-compute", s.data, false);
  const std::vector<double> p = {4.7, 0.66, 1.25};
  std::vector<double> gc(3), gg(3);
  const double want = cpu->evaluate_with_gradient(p, gc);
  EXPECT_NEAR(gl->evaluate(p), want, 1e-9 * want);
  EXPECT_NEAR(gl->evaluate_with_gradient(p, gg), want, 1e-9 * want);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(gg[i], gc[i], 1e-8 * test::max_abs(gc));
}

// The suite's ASCII and DB examples with their library user function replaced by a constant:
// the data reach the fit by position (ASCII) and by tag (DB), χ² as written out here.
MsrFile with_theory(const std::filesystem::path& path, const std::string& from, const std::string& to) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  MsrFile msr = parse_msr(text, path.string());
  msr.path = path;
  return msr;
}

TEST(MusrXyFit, SuitesAsciiAndDbFilesReachTheFit) {
  {
    const MsrFile msr = with_theory(suite() / "BMWlibs/test-libGapIntegrals-ASCII.msr",
                                    "userFcn  libGapIntegrals TGapDWave 2 3 4 5", "const 2");
    const FitSetup s = prepare(msr);
    const XyData d = read_ascii_data(suite() / "BMWlibs/data/libGapIntegrals-test.dat");
    double want = 0.0;  // θ = par1 · par2 (asymmetry 1, const 2)
    for (std::size_t k = 0; k < 22; ++k) {
      const double r = (d.columns[1].values[k] - 7.983 * 4.470) / d.columns[1].errors[k];
      want += r * r;
    }
    ASSERT_EQ(s.data.runs[0].t.size(), 22u);  // fit 0 … 10: every point
    std::vector<double> p;
    for (const auto& q : msr.params) p.push_back(q.value);
    EXPECT_NEAR(test::make_evaluator("cpu", s.data, false)->evaluate(p), want, 1e-12 * want);
  }
  {
    const MsrFile msr = with_theory(suite() / "BMWlibs/test-libCalcMeanFieldsLEM-DB.msr",
                                    "userFcn  libCalcMeanFieldsLEM TMeanFieldsForScSingleLayer 1 2 3 4 5 5 5", "const 1");
    const FitSetup s = prepare(msr);
    const XyData d = read_db_data(suite() / "BMWlibs/data/Meissner-1L_160nm_TF95G_h12.db");
    ASSERT_EQ(s.data.runs[0].t, d.columns[2].values);  // xy-data dataE field
    double want = 0.0;
    for (std::size_t k = 0; k < 10; ++k) {
      const double r = (d.columns[5].values[k] - 95.0) / d.columns[5].errors[k];
      want += r * r;
    }
    std::vector<double> p;
    for (const auto& q : msr.params) p.push_back(q.value);
    EXPECT_NEAR(test::make_evaluator("cpu", s.data, false)->evaluate(p), want, 1e-12 * want);
  }
}

// Every fittype-8 example of the suite (ASCII, DB and DAT data), its user function replaced by
// `const 1`: the points in the fit range are musrfit's, as its STATISTIC's NDF + the number of
// parameters it fitted (steps ≠ 0) says.
TEST(MusrXyFit, EveryXyExampleHasMusrfitsNumberOfPoints) {
  const char* files[] = {"BMWlibs/test-libGapIntegrals-ASCII.msr", "BMWlibs/test-libCalcMeanFieldsLEM-DB.msr",
                         "DepthProfiles/1300Ar/1300Ar_5G_260K_asym.msr", "DepthProfiles/1300Ar/1300Ar_5G_260K_diaFrac.msr",
                         "DepthProfiles/1300x/1300x_100G_260K_diaFrac.msr", "DepthProfiles/1300x/1300x_5G_260K_asym.msr",
                         "DepthProfiles/PECVD_Si/Si_PECVD_100G_260K_asym.msr", "DepthProfiles/PECVD_Si/Si_PECVD_100G_260K_diaFrac.msr",
                         "DepthProfiles/PECVD_thermal_SiC/SiC_PECVD_thermal_100G_10K_diaFrac.msr",
                         "DepthProfiles/PECVD_thermal_SiC/SiC_PECVD_thermal_100G_260K_asym.msr",
                         "DepthProfiles/PECVD_thermal_SiC/SiC_PECVD_thermal_100G_260K_diaFrac.msr"};
  for (const char* rel : files) {
    std::ifstream in(suite() / rel);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    const auto at = text.find("userFcn");
    ASSERT_NE(at, std::string::npos) << rel;
    text.replace(at, text.find('\n', at) - at, "const 1");
    MsrFile msr = parse_msr(text, (suite() / rel).string());
    msr.path = suite() / rel;
    ASSERT_TRUE(msr.statistic) << rel;
    int fitted = 0;
    for (const auto& q : msr.params) fitted += q.step != 0.0;
    EXPECT_EQ(static_cast<int>(prepare(msr).data.bins()), msr.statistic->ndf + fitted) << rel;
  }
}

TEST(MusrXyFit, BadRunsAreOneLineNamingTheMsrLine) {
  tomo::test::TempDir tmp("musr-xy-bad");
  MsrFile msr = test::write_xy_case(tmp.dir, 5);
  const std::string where = (tmp.dir / "sim.msr").string() + ":11: RUN sim: ";
  // ASCII files are x, y whatever xy-data says (musrfit); DB and DAT choose by number or tag.
  msr.runs[0].xy_data = {"1", "3"};
  EXPECT_EQ(prepare(msr).data.runs[0].t.size(), 53u);
  std::ofstream(tmp.dir / "t.dat") << "x xErr y\n1 0.1 2\n2 0.1 3\n3 0.1 4\n";
  MsrFile dat = msr;
  dat.runs[0].file = "t";
  dat.runs[0].format = "DAT";
  const std::string where_t = (tmp.dir / "sim.msr").string() + ":11: RUN t: ";
  EXPECT_EQ(refusal([&] { prepare(dat); }), where_t + "xy-data y column '3' is not in 1..2");
  dat.runs[0].xy_data = {"x", "z"};
  EXPECT_EQ(refusal([&] { prepare(dat); }), where_t + "xy-data y column 'z' is not a tag of the data file (x, y)");
  // A DAT column without an error column has errors 0 (musrfit): χ² is undefined.
  dat.runs[0].xy_data = {"x", "y"};
  EXPECT_EQ(refusal([&] { prepare(dat); }),
            where_t + "point 1 (x = 1) of y column 'y' has error 0: χ² needs errors > 0 (a DAT column without an ...Err column has none)");
  dat.runs[0].xy_data = {"y", "x"};
  EXPECT_EQ(prepare(dat).data.runs[0].sigma, (std::vector<double>{0.1, 0.1, 0.1}));
  // fittype 8 without xy-data, and a fit range in bins.
  EXPECT_NE(refusal([&] {
              parse_msr("t\nFITPARAMETER\n 1 a 1 0.1\nTHEORY\nconst 1\nRUN sim PIM3 PSI ASCII\nfittype 8\nfit 0 1\n", "m.msr");
            }).find("m.msr:6: non-μSR RUN (fittype 8) needs xy-data <x column> <y column>"),
            std::string::npos);
  msr.runs[0].settings.fit = FitRange{.in_bins = true};
  EXPECT_EQ(refusal([&] { prepare(msr); }), where + "fit range in bins (fgb/lgb) has no meaning for x-y data: give x_start x_end");
}

}  // namespace
}  // namespace tomo::musr
