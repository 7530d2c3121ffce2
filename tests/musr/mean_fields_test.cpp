// libCalcMeanFieldsLEM's TMeanFieldsForScSingleLayer and TMeanFieldsForScHalfSpace as native built-ins
// (compute/musr/bmw/mean_fields.hpp): values against an independent computation
// (tests/musr/reference/mean_fields_reference.py: the library's rules written out, at 30 digits),
// at the profile energies, between and beyond them with unequal layer weights; the gradient; the
// gl-compute backend against cpu; the startup file and the profiles on bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "compute/core/error.hpp"
#include "compute/musr/bmw/mean_fields.hpp"
#include "compute/musr/user_fcn.hpp"
#include "tests/musr/gpu_test_data.hpp"
#include "tests/musr/mean_fields_data.hpp"

namespace tomo::musr::test {
namespace {

namespace fs = std::filesystem;

const fs::path& kExample = kMeanFieldsExample;
const std::vector<double> kFitted = mean_fitted();
const std::vector<double> kWeighted = mean_weighted();

TEST(MusrMeanFields, MatchTheLibrarysRulesAtTheProfileEnergies) {
  // The script's output at the example's fitted point (profile energies, keV).
  const double want[][2] = {{2.0, 94.373340062556745},  {5.0, 93.605927070177183},  {7.5, 93.121271897597121},
                            {10.0, 92.727380253022072}, {12.0, 92.480173120787081}, {16.0, 92.171355784368528},
                            {18.0, 92.120144492805431}, {20.0, 92.14972666291428},  {22.0, 92.273528159679378},
                            {24.0, 92.499421427639463}};
  const Program p = mean_program(kExample);
  for (const auto& w : want) EXPECT_NEAR(evaluate(p, kFitted, w[0]), w[1], 1e-12 * w[1]) << w[0] << " keV";
}

TEST(MusrMeanFields, InterpolateInEnergyAndWeighTheLayers) {
  // Between profile energies (6.25, 14.1, 23 keV) the library interpolates the two means; below
  // the first and above the last it takes the end profile's; the layers weighted 0.3, 0.9, 0.6.
  const double want[][2] = {{1.0, 96.897413361871886},
                            {6.25, 87.592067916738293},
                            {14.1, 85.840345137319001},
                            {23.0, 96.242503484091146},
                            {30.0, 96.908407586519704}};
  const Program p = mean_program(kExample);
  for (const auto& w : want) EXPECT_NEAR(evaluate(p, kWeighted, w[0]), w[1], 1e-12 * w[1]) << w[0] << " keV";
}

TEST(MusrMeanFields, HalfSpaceMatchesTheLibrarysRules) {
  // TMeanFieldsForScHalfSpace(B0 100, d 12, λ 60) from the same script.
  const double want[][2] = {{1.0, 96.211974595738691}, {5.0, 80.888433234017284},  {6.25, 75.236986939616487},
                            {14.1, 46.282454800701604}, {24.0, 22.711994547548728}, {30.0, 22.711994547548728}};
  auto f = resolve_user_function("libCalcMeanFieldsLEM", "TMeanFieldsForScHalfSpace", kExample);
  ProgramBuilder b(3);
  const std::vector<std::int32_t> args = {b.param(0), b.param(1), b.param(2)};
  const Program p = b.finish(build_user_function(b, *f, args, b.time()));
  const std::vector<double> par = {100.0, 12.0, 60.0};
  for (const auto& w : want) EXPECT_NEAR(evaluate(p, par, w[0]), w[1], 1e-12 * w[1]) << w[0] << " keV";
  // The gradient (d off the rows: at d = 12 nm a 16 keV row sits on the kink of B at z = d).
  const std::vector<double> par2 = {100.0, 12.3, 60.0};
  ProgramEvaluator ev(p);
  ev.prepare(par2, true);
  std::vector<double> g(ev.used().size());
  for (double e : {5.0, 14.1}) {
    (void)ev.value_and_gradient(e, g);
    for (std::size_t k = 0; k < ev.used().size(); ++k) {
      const int i = ev.used()[k];
      const double h = 1e-6 * par2[static_cast<std::size_t>(i)];
      auto up = par2, dn = par2;
      up[static_cast<std::size_t>(i)] += h, dn[static_cast<std::size_t>(i)] -= h;
      const double want_g = (evaluate(p, up, e) - evaluate(p, dn, e)) / (2 * h);
      EXPECT_NEAR(g[k], want_g, 1e-6 * std::max(1.0, std::fabs(want_g))) << "parameter " << i + 1 << ", E = " << e;
    }
  }
}

TEST(MusrMeanFields, FilmFieldIsTheLondonProfile) {
  // B/B0 = cosh((z − d − t/2)/λ)/cosh(t/(2λ)) inside the film, 1 outside.
  double g[3];
  const double v = bmw::london_film_field(50.0, 10.0, 100.0, 40.0, &g);
  EXPECT_NEAR(v, std::cosh((50.0 - 10.0 - 50.0) / 40.0) / std::cosh(50.0 / 40.0), 1e-15);
  EXPECT_EQ(bmw::london_film_field(5.0, 10.0, 100.0, 40.0), 1.0);
  EXPECT_EQ(bmw::london_film_field(110.5, 10.0, 100.0, 40.0), 1.0);
  const double h = 1e-6;
  EXPECT_NEAR(g[0], (bmw::london_film_field(50.0, 10.0 + h, 100.0, 40.0) - bmw::london_film_field(50.0, 10.0 - h, 100.0, 40.0)) / (2 * h), 1e-8);
  EXPECT_NEAR(g[1], (bmw::london_film_field(50.0, 10.0, 100.0 + h, 40.0) - bmw::london_film_field(50.0, 10.0, 100.0 - h, 40.0)) / (2 * h), 1e-8);
  EXPECT_NEAR(g[2], (bmw::london_film_field(50.0, 10.0, 100.0, 40.0 + h) - bmw::london_film_field(50.0, 10.0, 100.0, 40.0 - h)) / (2 * h), 1e-8);
}

TEST(MusrMeanFields, GradientMatchesDifferencesOfTheValue) {
  const Program p = mean_program(kExample);
  ProgramEvaluator ev(p);
  ev.prepare(kWeighted, true);
  std::vector<double> g(ev.used().size());
  for (double e : {2.0, 6.25, 14.1, 24.0}) {
    (void)ev.value_and_gradient(e, g);
    for (std::size_t k = 0; k < ev.used().size(); ++k) {
      const int i = ev.used()[k];
      if (i == 1 || i == 2) continue;  // d and t also move the layers' rows: a staircase (below)
      const double h = 1e-6 * std::fabs(kWeighted[static_cast<std::size_t>(i)]);
      auto up = kWeighted, dn = kWeighted;
      up[static_cast<std::size_t>(i)] += h, dn[static_cast<std::size_t>(i)] -= h;
      const double want = (evaluate(p, up, e) - evaluate(p, dn, e)) / (2 * h);
      EXPECT_NEAR(g[k], want, 1e-6 * std::max(1.0, std::fabs(want))) << "parameter " << i + 1 << ", E = " << e;
    }
  }
  // With equal weights the layers cancel and d, t move the field alone (a smooth function).
  const std::vector<double> par = kFitted;
  ev.prepare(par, true);
  for (double e : {2.0, 7.5, 22.0}) {
    (void)ev.value_and_gradient(e, g);
    for (std::size_t k = 0; k < ev.used().size(); ++k) {
      const int i = ev.used()[k];
      const double h = 1e-6 * std::fabs(par[static_cast<std::size_t>(i)]);
      auto up = par, dn = par;
      up[static_cast<std::size_t>(i)] += h, dn[static_cast<std::size_t>(i)] -= h;
      const double want = (evaluate(p, up, e) - evaluate(p, dn, e)) / (2 * h);
      EXPECT_NEAR(g[k], want, 1e-6 * std::max(1.0, std::fabs(want))) << "parameter " << i + 1 << ", E = " << e;
    }
  }
}

TEST(MusrMeanFields, GlComputeEqualsCpu) {
  const FitData data = mean_data();
  expect_matches_reference(*make_evaluator("gl-compute", data, false), data, kWeighted, 1e-9, 1e-7);
}

// A folder with a BMW_startup.xml and one profile (removed with the fixture).
struct LemFolder {
  fs::path dir;
  LemFolder(const std::string& lem, const std::string& rge) {
    dir = fs::temp_directory_path() / ("tomo_mean_fields_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
    std::ofstream(dir / "BMW_startup.xml") << "<?xml version=\"1.0\"?>\n<BMW>\n" << lem << "</BMW>\n";
    if (!rge.empty()) std::ofstream(dir / "P-05.rge", std::ios::binary) << rge;
  }
  ~LemFolder() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

const char* kOneEnergy = "<LEM><data_path>P-</data_path><energy_list><energy_label>05</energy_label><energy>5.0</energy></energy_list></LEM>\n";

std::string error_of(const fs::path& dir) {
  try {
    (void)resolve_user_function("libCalcMeanFieldsLEM", "TMeanFieldsForScSingleLayer", dir);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(MusrMeanFields, TheLastRowCountsTwiceWhenWhitespaceFollowsIt) {
  // Rows at 20, 40 and 60 Å with 1, 2 and 3 particles: the library weighs the last row twice
  // when the file ends in a newline, once when the number ends the file (the zero rows it
  // appends up to 2100 Å weigh nothing). B0 1, d 0, t 10 nm, λ 5 nm.
  const std::vector<double> par = {1.0, 0.0, 10.0, 5.0, 1.0, 1.0, 1.0};
  auto b = [](double z) { return std::cosh((z - 5.0) / 5.0) / std::cosh(1.0); };
  LemFolder twice(kOneEnergy, " DEPTH PARTICLES\n 20. 1\n 40. 2\n 60. 3\n");
  EXPECT_NEAR(evaluate(mean_program(twice.dir), par, 5.0), (b(2.0) + 2.0 * b(4.0) + 6.0 * b(6.0)) / 9.0, 1e-14);
  LemFolder once(kOneEnergy, " DEPTH PARTICLES\n 20. 1\n 40. 2\n 60. 3");
  EXPECT_NEAR(evaluate(mean_program(once.dir), par, 5.0), (b(2.0) + 2.0 * b(4.0) + 3.0 * b(6.0)) / 6.0, 1e-14);
}

TEST(MusrMeanFields, RefusesAStartupWithoutProfilesAndAMissingProfile) {
  LemFolder none("<delta_t>0.01</delta_t>\n", "");
  EXPECT_EQ(error_of(none.dir), (none.dir / "BMW_startup.xml").string() + ": no <energy_list> of TRIM.SP profiles in its <LEM> section");
  LemFolder missing(kOneEnergy, "");
  EXPECT_NE(error_of(missing.dir).find("P-05.rge"), std::string::npos) << error_of(missing.dir);
  LemFolder garbage(kOneEnergy, " DEPTH PARTICLES\n 20. one\n");
  EXPECT_NE(error_of(garbage.dir).find("P-05.rge: particle count 'one' is not a number"), std::string::npos) << error_of(garbage.dir);
  EXPECT_EQ(resolve_user_function("libCalcMeanFieldsLEM", "TMeanFieldsForScSingleLayer", kExample)->arity_error(4),
            "takes 7 arguments, got 4");
}

}  // namespace
}  // namespace tomo::musr::test
