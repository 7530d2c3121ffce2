// musrfit's PDepthProfile as a native built-in: values against the rge files read independently
// (tests/musr/reference/depth_profile_reference.py), its gradient, gl-compute against cpu, and
// the rge / startup readers on bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "compute/core/error.hpp"
#include "compute/musr/bmw/depth_profile.hpp"
#include "compute/musr/rge_profiles.hpp"
#include "compute/musr/user_fcn.hpp"
#include "tests/musr/depth_profile_data.hpp"
#include "tests/musr/gpu_test_data.hpp"

namespace tomo::musr::test {
namespace {

const std::filesystem::path& kFolder = kDepthFolder;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(MusrDepthProfile, MatchesTheReferenceFromTheRgeFiles) {
  const Program p = depth_program();
  // x at cell midpoints: musrfit's staircase and the interpolated curve agree there; between
  // them the curve is the monotone cubic through the midpoints (SciPy's PchipInterpolator).
  const std::vector<double> mid = {0.1531, 0.04051, 0.00447, 40.0, 104.0};
  const std::vector<double> between = {0.1531, 0.04051, 0.00447, 39.7, 103.8};
  const double e[] = {2.0, 6.998, 12.9921, 21.9912, 22.95};
  const double want_mid[] = {0.15276597746136, 0.0562500372047473, 0.032175631289683, 0.0056771420553629, 0.0};
  const double want_between[] = {0.152738110525106, 0.0558750369454477, 0.0318116121619378, 0.00566348760083142, 0.0};
  for (int k = 0; k < 5; ++k) {
    EXPECT_NEAR(evaluate(p, mid, e[k]), want_mid[k], 1e-14) << "E = " << e[k];
    EXPECT_NEAR(evaluate(p, between, e[k]), want_between[k], 1e-14) << "E = " << e[k];
  }
}

TEST(MusrDepthProfile, GradientMatchesDifferencesOfTheValue) {
  const Program p = depth_program();
  std::vector<double> par = {0.1531, 0.04051, 0.00447, 39.7, 103.8};
  ProgramEvaluator ev(p);
  ev.prepare(par, true);
  std::vector<double> g(ev.used().size());
  (void)ev.value_and_gradient(6.998, g);
  for (std::size_t k = 0; k < ev.used().size(); ++k) {
    const int i = ev.used()[k];
    const double h = 1e-4 * std::max(1.0, std::fabs(par[i]));
    auto up = par, dn = par;
    up[i] += h, dn[i] -= h;
    EXPECT_NEAR(g[k], (evaluate(p, up, 6.998) - evaluate(p, dn, 6.998)) / (2 * h), 1e-8) << "parameter " << i + 1;
  }
  EXPECT_NE(g[3], 0.0);
}

// ∂f/∂x1 is continuous across the curve's nodes (the cell midpoints 30, 40, 50 nm): a
// piecewise-linear C would jump there (its slope changes from one cell to the next), giving χ²
// a kink on which a fitted boundary stops without converging (1300Ar_5G_260K_asym at x1 = 40).
TEST(MusrDepthProfile, SlopeInTheBoundaryIsContinuousAtTheNodes) {
  const Program p = depth_program();
  auto slope = [&](double x1) {
    std::vector<double> par = depth_params();
    par[3] = x1;
    ProgramEvaluator ev(p);
    ev.prepare(par, true);
    std::vector<double> g(ev.used().size());
    (void)ev.value_and_gradient(6.998, g);
    return g[3];
  };
  for (double node : {30.0, 40.0, 50.0}) {
    const double left = slope(node - 1e-9), right = slope(node + 1e-9);
    EXPECT_GT(std::fabs(left), 1e-4) << node;
    EXPECT_NEAR(left, right, 1e-9 * std::fabs(left)) << node;
    // The slopes of the secants over the two cells beside the node differ: the linear curve's would.
    std::vector<double> a = depth_params(), b = depth_params(), c = depth_params();
    a[3] = node - 10.0, b[3] = node, c[3] = node + 10.0;
    const double lo = (evaluate(p, b, 6.998) - evaluate(p, a, 6.998)) / 10.0, hi = (evaluate(p, c, 6.998) - evaluate(p, b, 6.998)) / 10.0;
    EXPECT_GT(std::fabs(lo - hi), 0.01 * std::fabs(left)) << node;
  }
}

TEST(MusrDepthProfile, GlComputeEqualsCpu) {
  const FitData data = depth_data();
  expect_matches_reference(*make_evaluator("gl-compute", data, false), data, perturbed(depth_params()), 1e-9, 1e-7);
  expect_matches_reference(*make_evaluator("gl-compute", data, false), data, depth_params(), 1e-9, 1e-7);
}

TEST(MusrDepthProfile, WrongArgumentCountIsOneLine) {
  auto f = resolve_user_function("libPDepthProfile", "PDepthProfile", kFolder);
  EXPECT_EQ(f->arity_error(4), "takes 2n − 1 arguments (f1 … fn, x1 … x_{n−1}; n ≥ 2), got 4");
  EXPECT_EQ(f->arity_error(5), "");
  EXPECT_EQ(error_of([] { (void)resolve_user_function("lib", "PDepthProfile", std::filesystem::path(TOMO_SOURCE_DIR) / "docs"); }),
            "userFcn PDepthProfile reads its TRIM.SP profiles from depth_profile_startup.xml: none in " +
                (std::filesystem::path(TOMO_SOURCE_DIR) / "docs").string() + " or the working directory");
}

TEST(MusrRgeReader, RefusesBadRgeFilesWithOneLine) {
  EXPECT_EQ(error_of([] { (void)parse_rge(" DEPTH PARTICLES\n 5. 10\n 15. 20 3\n", 1000, "a.rge"); }),
            "a.rge:3: expected two columns (depth in Å, particles), got '15. 20 3'");
  EXPECT_EQ(error_of([] { (void)parse_rge("5. 10\n15. x\n", 1000, "a.rge"); }), "a.rge:2: particles 'x' is not a number");
  EXPECT_EQ(error_of([] { (void)parse_rge("5. 10\n5. 20\n", 1000, "a.rge"); }),
            "a.rge:2: depth 5. Å is not above the previous one (depths must increase from > 0)");
  EXPECT_EQ(error_of([] { (void)parse_rge("5. 10\n15. -2\n", 1000, "a.rge"); }), "a.rge:2: particles -2 is negative");
  EXPECT_EQ(error_of([] { (void)parse_rge("5. 0\n15. 0\n", 1000, "a.rge"); }), "a.rge: no particles (every count is 0)");
  EXPECT_EQ(error_of([] { (void)parse_rge("DEPTH\n", 1000, "a.rge"); }), "a.rge: fewer than two depth rows");
  EXPECT_EQ(error_of([] { (void)parse_rge("5. nan\n15. 1\n", 1000, "a.rge"); }), "a.rge:1: particles 'nan' is not a number");
  // musrfit's normalisation: Σ n_j Δz_j = 1, cfd the running sum of n.
  const RgeProfile p = parse_rge("5. 1\n15. 3\n", 1000, "a.rge");
  EXPECT_DOUBLE_EQ(p.cfd[0], 1.0 / 3.5);
  EXPECT_DOUBLE_EQ(p.cfd[1], 4.0 / 3.5);
}

TEST(MusrRgeReader, RefusesBadStartupFilesWithOneLine) {
  auto xml = [](const std::string& inner) { return "<depthProf>\n<trim_sp>\n" + inner + "\n</trim_sp>\n</depthProf>\n"; };
  const std::string ok = "<data_path>./T/</data_path><rge_fln_pre>S_E</rge_fln_pre>";
  EXPECT_EQ(error_of([] { (void)parse_rge_startup("<x/>", "s.xml"); }), "s.xml: no <trim_sp> element");
  EXPECT_EQ(error_of([&] { (void)parse_rge_startup(xml("<rge_fln_pre>S</rge_fln_pre><energy>1</energy>"), "s.xml"); }),
            "s.xml:2: <trim_sp> has no <data_path>");
  EXPECT_EQ(error_of([&] { (void)parse_rge_startup(xml(ok + "<energy_vect start=\"1000\" stop=\"2000\" step=\"0\"/>"), "s.xml"); }),
            "s.xml:3: <energy_vect> step must be > 0");
  EXPECT_EQ(error_of([&] { (void)parse_rge_startup(xml(ok + "<energy_vect start=\"1000\" stop=\"2000\"/>"), "s.xml"); }),
            "s.xml:3: <energy_vect> has no attribute step");
  EXPECT_EQ(error_of([&] { (void)parse_rge_startup(xml(ok + "\n<energy>1.5</energy>"), "s.xml"); }),
            "s.xml:4: <energy> '1.5' is not a whole number of eV in [0, 1e9]");
  EXPECT_EQ(error_of([&] { (void)parse_rge_startup(xml(ok + "<energy_vect start=\"0\" stop=\"1000000000\" step=\"1\"/>"), "s.xml"); }),
            "s.xml:3: more than 1000 implantation energies");
  EXPECT_EQ(error_of([&] { (void)parse_rge_startup(xml(ok), "s.xml"); }),
            "s.xml:2: <trim_sp> names no implantation energy (<energy_vect> or <energy>)");
  const RgeStartup s = parse_rge_startup(xml(ok + "<energy_vect start=\"1000\" stop=\"3000\" step=\"1000\"/><energy>5000</energy>"), "s.xml");
  EXPECT_EQ(s.energies_ev, (std::vector<int>{1000, 2000, 3000, 5000}));
  EXPECT_EQ(s.data_path, "./T/");
  // A missing rge file is named by the common input gate.
  const auto dir = std::filesystem::temp_directory_path() / "tomo_rge_missing";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "depth_profile_startup.xml") << xml(ok + "<energy>1000</energy>");
  const std::string e = error_of([&] { (void)read_rge_profiles(dir / "depth_profile_startup.xml"); });
  EXPECT_NE(e.find("S_E1000.rge"), std::string::npos) << e;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tomo::musr::test
