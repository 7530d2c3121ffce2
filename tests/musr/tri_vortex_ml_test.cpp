// libFitPofB's TBulkTriVortexML as a native built-in (compute/musr/bmw/tri_vortex_ml.hpp): values
// against an independent computation (tests/musr/reference/tri_vortex_ml_reference.py: the
// Fourier series summed directly, no FFT), the limits λ → ∞ (P(B) → δ at ⟨B⟩) and ⟨B⟩ ≥ B_c2 (no
// lattice), the phase derivative, and the settings file on bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "compute/core/error.hpp"
#include "compute/musr/bmw/startup.hpp"
#include "compute/musr/bmw/tri_vortex_ml.hpp"
#include "compute/musr/fit_problem.hpp"
#include "compute/musr/user_fcn.hpp"

namespace tomo::musr::test {
namespace {

namespace fs = std::filesystem;

// A folder with a BMW_startup.xml of the given body (removed with the fixture).
struct StartupFolder {
  fs::path dir;
  explicit StartupFolder(const std::string& body) {
    dir = fs::temp_directory_path() / ("tomo_tri_vortex_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
    std::ofstream(dir / "BMW_startup.xml") << "<?xml version=\"1.0\"?>\n<BMW>\n" << body << "</BMW>\n";
  }
  ~StartupFolder() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

const char* kSmallGrid = "  <delta_t>0.01</delta_t>\n  <delta_B>0.5</delta_B>\n  <VortexLattice><N_VortexGrid>16</N_VortexGrid></VortexLattice>\n";

Program vortex_program(const fs::path& dir) {
  auto f = resolve_user_function("libFitPofB", "TBulkTriVortexML", dir);
  ProgramBuilder b(4);
  std::vector<std::int32_t> args;
  for (int i = 0; i < 4; ++i) args.push_back(b.param(i));
  return b.finish(build_user_function(b, *f, args, b.time()));
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(MusrTriVortexML, MatchesTheDirectFourierSum) {
  StartupFolder folder(kSmallGrid);
  const Program p = vortex_program(folder.dir);
  const double t[] = {-0.1, 0.0, 0.123, 1.0, 3.3};
  // The example's parameters (a = 460 nm ≫ λ), then a dense lattice (a = 109 nm ≈ λ).
  const std::vector<double> par1 = {10.34, 112.82363, 170.457, 4.0}, par2 = {-30.0, 2000.0, 95.0, 3.0};
  const double want1[] = {0.983759970682328, 0.983759970682328, 0.2071727822612, -0.280117376579787, 0.20993595937056};
  const double want2[] = {0.866025403784439, 0.866025403784439, 0.248858065405403, 0.179296331630825, 0.200185122777685};
  for (int k = 0; k < 5; ++k) {
    EXPECT_NEAR(evaluate(p, par1, t[k]), want1[k], 1e-12) << "t = " << t[k];
    EXPECT_NEAR(evaluate(p, par2, t[k]), want2[k], 1e-12) << "t = " << t[k];
  }
}

TEST(MusrTriVortexML, LargeLambdaGivesTheDeltaAtTheMeanField) {
  StartupFolder folder(kSmallGrid);
  const Program p = vortex_program(folder.dir);
  // λ = 10⁹ nm: every field is ⟨B⟩ = 1000.2 G within 1e-9 G, so P(B) is the one bin ⌈B/ΔB⌉ = 2001.
  const double gbar = 0.0135538817, db = 0.5;
  const int m = 14756;  // ⌊1/(γ̄ · 0.01 · 0.5)⌋ = 14755, rounded up to even
  const double tbin = 1.0 / (gbar * (m - 1) * db);
  for (int i : {1, 37, 400, 2000}) {
    const double want = std::cos(2 * kPi * i * 2001.0 / m + 25.0 * kPi / 180.0);
    EXPECT_NEAR(evaluate(p, std::vector<double>{25.0, 1000.2, 1e9, 2.0}, i * tbin), want, 1e-12) << "i = " << i;
  }
  // Halfway between grid times: the linear interpolation of the neighbours.
  const double a = std::cos(2 * kPi * 37 * 2001.0 / m), b = std::cos(2 * kPi * 38 * 2001.0 / m);
  EXPECT_NEAR(evaluate(p, std::vector<double>{0.0, 1000.2, 1e9, 2.0}, 37.5 * tbin), 0.5 * (a + b), 1e-12);
}

TEST(MusrTriVortexML, NoLatticeAboveBc2) {
  StartupFolder folder(kSmallGrid);
  const Program p = vortex_program(folder.dir);
  // ξ = 60 nm: B_c2 = Φ0/(2πξ²) = 914 G < 1000.2 G, the field is uniform.
  const double tbin = 1.0 / (0.0135538817 * 14755 * 0.5);
  EXPECT_NEAR(evaluate(p, std::vector<double>{0.0, 1000.2, 200.0, 60.0}, 11 * tbin), std::cos(2 * kPi * 11 * 2001.0 / 14756), 1e-12);
}

TEST(MusrTriVortexML, GradientMatchesDifferencesOfTheValue) {
  // The example's 512² grid: 65536 points make the staircase in the arguments fine enough for
  // differences over 10⁻³ of an argument to show the slope the analytic derivative gives.
  StartupFolder folder("  <delta_t>0.01</delta_t>\n  <delta_B>0.5</delta_B>\n  <N_VortexGrid>512</N_VortexGrid>\n");
  const Program p = vortex_program(folder.dir);
  const std::vector<double> par = {10.34, 112.82363, 170.457, 4.0};
  ProgramEvaluator ev(p);
  ev.prepare(par, true);
  ASSERT_EQ(ev.used().size(), 4u);
  for (double t : {0.3, 1.0}) {
    std::vector<double> g(4);
    (void)ev.value_and_gradient(t, g);
    for (int i = 0; i < 4; ++i) {
      const double h = (i == 0 ? 1e-6 : i == 1 ? 1e-3 : 1e-2) * par[static_cast<std::size_t>(i)];
      auto up = par, dn = par;
      up[static_cast<std::size_t>(i)] += h, dn[static_cast<std::size_t>(i)] -= h;
      const double diff = (evaluate(p, up, t) - evaluate(p, dn, t)) / (2 * h);
      EXPECT_NEAR(g[static_cast<std::size_t>(i)], diff, (i == 0 ? 1e-7 : 0.06) * std::fabs(diff) + 1e-9) << "t " << t << ", parameter " << i + 1;
    }
  }
}

TEST(MusrTriVortexML, SettingsFileOnBadInput) {
  {
    StartupFolder folder("  <delta_t>0.01</delta_t>\n");
    EXPECT_NE(error_of([&] { (void)vortex_program(folder.dir); }).find("TBulkTriVortexML needs <N_VortexGrid>"), std::string::npos);
  }
  {
    StartupFolder folder("  <delta_B>-1</delta_B>\n  <N_VortexGrid>16</N_VortexGrid>\n");
    EXPECT_NE(error_of([&] { (void)vortex_program(folder.dir); }).find("<delta_B> -1 is outside"), std::string::npos);
  }
  {
    StartupFolder folder("  <delta_t>1e-6</delta_t>\n  <delta_B>0.001</delta_B>\n  <N_VortexGrid>16</N_VortexGrid>\n");
    EXPECT_NE(error_of([&] { (void)vortex_program(folder.dir); }).find("more than 1e7"), std::string::npos);
  }
  {
    StartupFolder folder("  <N_VortexGrid>4096</N_VortexGrid>\n");
    EXPECT_NE(error_of([&] { (void)vortex_program(folder.dir); }).find("<N_VortexGrid> 4096 is outside"), std::string::npos);
  }
  EXPECT_NE(error_of([] { (void)resolve_user_function("libFitPofB", "TBulkTriVortexML", fs::temp_directory_path() / "tomo_no_such_folder"); })
                .find("userFcn TBulkTriVortexML reads its settings from BMW_startup.xml: none in"),
            std::string::npos);
  // The example's own settings file reads as musrfit reads it.
  std::ifstream in(fs::path(TOMO_SOURCE_DIR) / "tests/musr/musrfit/BMWlibs/BMW_startup.xml");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto s = bmw::parse_bmw_startup(text, "BMW_startup.xml");
  EXPECT_EQ(s.vortex_grid, 512);
  EXPECT_DOUBLE_EQ(s.delta_t, 0.01);
  EXPECT_DOUBLE_EQ(s.delta_b, 0.5);
  EXPECT_EQ(s.data_path, "profiles/TestProfile-");
  ASSERT_EQ(s.energies_kev.size(), 10u);
  EXPECT_EQ(s.energy_labels[2], "07_5");
  EXPECT_DOUBLE_EQ(s.energies_kev[2], 7.5);
}

}  // namespace
}  // namespace tomo::musr::test
