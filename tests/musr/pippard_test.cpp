// libPNL_PippardFitter's PNL_PippardFitter as a native built-in (compute/musr/bmw/pippard.hpp):
// P(t) and the field profile against an independent computation of the library's rules
// (tests/musr/reference/pippard_reference.py: numpy's FFT, a direct sum over the depths, no
// tables), the gradient against differences of the value and of that reference, the folding of
// the fixed arguments, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "compute/musr/bmw/pippard.hpp"
#include "compute/musr/fit_problem.hpp"
#include "compute/musr/rge_profiles.hpp"
#include "compute/musr/user_fcn.hpp"
#include "tests/musr/bmw_test_files.hpp"

namespace tomo::musr::test {
namespace {

namespace fs = std::filesystem;

const fs::path kAsDir = fs::path(TOMO_SOURCE_DIR) / "tests/musr/musrfit/ASlibs";

// test-nonlocal.msr's folded arguments: E = 22 keV, t = 0.8683, D = 5000 nm, ℓ = 12000 nm, ξ₀ = 94 nm.
const std::vector<double> kFixed = {22000.0, 0.8683, 5000.0, 12000.0, 94.0};

// PNL_PippardFitter(par1 … par9): parameters 1–5 fixed at kFixed (unless `free_one` names one of
// them, 0-based), λ_L, B, φ, d free.
Program pippard_program(int free_one = -1) {
  auto f = resolve_user_function("libPNL_PippardFitter", "PNL_PippardFitter", kAsDir);
  ProgramBuilder b(9);
  for (int i = 0; i < 5; ++i)
    if (i != free_one) b.set_fixed(i, kFixed[static_cast<std::size_t>(i)]);
  std::vector<std::int32_t> args;
  for (int i = 0; i < 9; ++i) args.push_back(b.param(i));
  return b.finish(build_user_function(b, *f, args, b.time()));
}

std::vector<double> params(double lambda, double field, double phase, double dead) {
  auto p = kFixed;
  p.insert(p.end(), {lambda, field, phase, dead});
  return p;
}

bmw::PippardSettings settings22() {
  const auto profiles = read_rge_profiles(kAsDir / "nonlocal_startup.xml");
  bmw::PippardSettings s;
  s.temperature = kFixed[1], s.thickness = kFixed[2], s.mean_free_path = kFixed[3], s.xi0 = kFixed[4];
  for (const auto& p : profiles)
    if (p.energy_ev == 22000) s.depth_nm = p.depth_nm, s.density = p.density;
  return s;
}

TEST(MusrPippard, FieldProfileMatchesTheReference) {
  // The reference's numpy FFT: s = 12, dz = 0.0857309137 nm; the library's bins and our smooth
  // reading between their middles at 1, 100 and 4999 nm.
  const bmw::PippardField f = bmw::pippard_field(settings22(), 52.5);
  EXPECT_EQ(f.shift, 12);
  EXPECT_NEAR(f.dz, 0.08573091372472495, 1e-15);
  EXPECT_NEAR(f.bin_value(1.0), 0.9955884734419899, 1e-12);
  EXPECT_NEAR(f.bin_value(100.0), 0.357373162011897, 1e-12);
  EXPECT_NEAR(f.bin_value(4999.0), 0.9950013985920889, 1e-12);
  EXPECT_NEAR(f.at(1.0), 0.995493091016454, 1e-12);
  EXPECT_NEAR(f.at(100.0), 0.35739339308222906, 1e-12);
  EXPECT_NEAR(f.at(4999.0), 0.994914931267174, 1e-12);
  EXPECT_EQ(f.at(0.03), 1.0);  // the first bin up to its middle
  EXPECT_EQ(f.at(0.0), 1.0);
  EXPECT_EQ(f.at(5000.0), 0.0);  // beyond the film
  EXPECT_EQ(f.bin_value(5000.0), 0.0);
}

TEST(MusrPippard, MatchesTheDirectSum) {
  // The reference's direct sums over the depths with the smooth reading of the field; the tables
  // interpolate on steps of at most 2⁻⁸/(γ_μB) µs, to (2⁻⁸)²/8 of the amplitude. The library's
  // staircase differs from it by at most 2.5·10⁻⁴ over 0–10 µs at the first point.
  const Program p = pippard_program();
  const double t[] = {0.0, 0.013, 0.5, 2.345, 7.77};
  struct Point {
    double lambda, field, dead, phase;
    double want[5];
  };
  const Point pts[] = {
      {52.5, 47.11, 0.0004, 42.0, {1, 0.730640884995094, 0.127926086761981, -0.538202690533282, -0.176776502020948}},
      {52.5, 47.11, 0.0004, 196.4, {1, -0.953911854086249, -0.528640289057286, 0.622806691978137, 0.131028389950654}},
      {80.0, 100.0, 7.3, -20.0, {1, 0.957846589174869, -0.24140408261072, -0.259940712710173, -0.00522041053528}},
      {52.5, 47.11, 25.0, 42.0, {1, 0.72676581629585, -0.0770290549808794, -0.12699494103616, 0.0576112447297107}},
  };
  for (const auto& q : pts)
    for (int k = 0; k < 5; ++k)
      EXPECT_NEAR(evaluate(p, params(q.lambda, q.field, q.phase, q.dead), t[k]), q.want[k], 2e-6)
          << "lambda " << q.lambda << " B " << q.field << " d " << q.dead << " t " << t[k];
  EXPECT_EQ(evaluate(p, params(52.5, 47.11, 42.0, 0.0), -0.3), 1.0);  // the library's 1 before t = 0
}

TEST(MusrPippard, GradientMatchesDifferences) {
  // At (λ_L, B, φ, d) = (52.5, 47.11, 42, 3), t = 2.345 the reference's central differences of the
  // smooth direct sum give ∂/∂λ_L = 0.0240351655, ∂/∂B = 0.02560396205, ∂/∂d = 0.0134222875.
  const Program p = pippard_program();
  const auto par = params(52.5, 47.11, 42.0, 3.0);
  ProgramEvaluator ev(p);
  ev.prepare(par, true);
  ASSERT_EQ(ev.used(), (std::vector<int>{5, 6, 7, 8}));  // the folded arguments have no gradient
  std::vector<double> g(4);
  (void)ev.value_and_gradient(2.345, g);
  EXPECT_NEAR(g[0], 0.0240351655, 2e-6);
  EXPECT_NEAR(g[1], 0.02560396205, 2e-6);
  EXPECT_NEAR(g[3], 0.0134222875, 2e-6);
  // Against differences of the value itself (the tables on one grid).
  for (double t : {0.3, 2.345, 8.1}) {
    ev.prepare(par, true);
    (void)ev.value_and_gradient(t, g);
    for (int k = 0; k < 4; ++k) {
      const auto u = static_cast<std::size_t>(5 + k);
      const double h = k == 3 ? 1e-4 : 1e-5 * par[u];
      auto up = par, dn = par;
      up[u] += h, dn[u] -= h;
      const double diff = (evaluate(p, up, t) - evaluate(p, dn, t)) / (up[u] - dn[u]);
      EXPECT_NEAR(g[static_cast<std::size_t>(k)], diff, 1e-5 * std::fabs(diff) + 1e-8) << "t " << t << ", parameter " << u + 1;
    }
  }
}

TEST(MusrPippard, TenthArgumentIsTheTemperatureExponent) {
  // n = 4 given explicitly is the default; n = 2 changes λ(T) and so P(t).
  auto f = resolve_user_function("libPNL_PippardFitter", "PNL_PippardFitter", kAsDir);
  auto with_exponent = [&](double n) {
    ProgramBuilder b(9);
    std::vector<std::int32_t> args;
    for (int i = 0; i < 5; ++i) args.push_back(b.constant(kFixed[static_cast<std::size_t>(i)]));
    for (int i = 5; i < 9; ++i) args.push_back(b.param(i));
    args.push_back(b.constant(n));
    return b.finish(build_user_function(b, *f, args, b.time()));
  };
  const auto par = params(52.5, 47.11, 42.0, 0.0);
  EXPECT_EQ(evaluate(with_exponent(4.0), par, 2.0), evaluate(pippard_program(), par, 2.0));
  EXPECT_GT(std::fabs(evaluate(with_exponent(2.0), par, 2.0) - evaluate(pippard_program(), par, 2.0)), 1e-3);
}

TEST(MusrPippard, FoldedArgumentsMustBeKnown) {
  const char* names[] = {"energy (argument 1)", "reduced temperature (argument 2)", "film thickness (argument 3)", "mean free path (argument 4)",
                         "coherence length xi0 (argument 5)"};
  for (int i = 0; i < 5; ++i) {
    const std::string e = input_error_of([&] { (void)pippard_program(i); });
    EXPECT_NE(e.find(std::string("PNL_PippardFitter: the ") + names[i] + " must be a fixed parameter"), std::string::npos) << e;
  }
}

TEST(MusrPippard, BadArgumentsAndSettings) {
  auto f = resolve_user_function("libPNL_PippardFitter", "PNL_PippardFitter", kAsDir);
  auto build = [&](std::vector<double> fixed) {
    ProgramBuilder b(9);
    std::vector<std::int32_t> args;
    for (double v : fixed) args.push_back(b.constant(v));
    for (int i = 5; i < 9; ++i) args.push_back(b.param(i));
    return b.finish(build_user_function(b, *f, args, b.time()));
  };
  const std::string e = input_error_of([&] { (void)build({23000.0, 0.8683, 5000.0, 12000.0, 94.0}); });
  EXPECT_NE(e.find("PNL_PippardFitter: no TRIM.SP profile within 900 eV of the energy 23000.000000 eV in "), std::string::npos) << e;
  EXPECT_NE(e.find("(energies: 1000, 2000, 4000, 6000, 8000, 10000, 12000, 14100, 18000, 22000, 25000, 27300 eV)"), std::string::npos) << e;
  // 22.85 keV is within 0.9 keV of 22 keV: the library's tolerance.
  EXPECT_EQ(evaluate(build({22850.0, 0.8683, 5000.0, 12000.0, 94.0}), params(52.5, 47.11, 42.0, 0.0), 1.0),
            evaluate(pippard_program(), params(52.5, 47.11, 42.0, 0.0), 1.0));
  EXPECT_NE(input_error_of([&] { (void)build({22000.0, 1.0, 5000.0, 12000.0, 94.0}); }).find("the reduced temperature 1.000000 is not in (0, 1)"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { (void)build({22000.0, 0.5, 5000.0, -1.0, 94.0}); }).find("must be positive"), std::string::npos);
  const Program p = pippard_program();
  EXPECT_NE(input_error_of([&] { (void)evaluate(p, params(0.0, 47.11, 42.0, 0.0), 1.0); }).find("lambda_L 0.000000 nm is not positive"),
            std::string::npos);
  // A wrong argument count is refused by the msr reader with the function's own reason.
  EXPECT_EQ(f->arity_error(8), "takes 9 or 10 arguments, got 8");
}

TEST(MusrPippard, StartupFileBounds) {
  BmwFolder d("");
  auto write = [&](const std::string& body) { d.file("nonlocal_startup.xml", body); };
  write("<nonlocal><nonlocal_par><fourier_points>12</fourier_points></nonlocal_par></nonlocal>");
  EXPECT_NE(input_error_of([&] { (void)resolve_user_function("libPNL_PippardFitter", "PNL_PippardFitter", d.dir); })
                .find("<fourier_points> '12' is not a whole number in [64, 16777216]"),
            std::string::npos);
  write("<nonlocal><nonlocal_par><fourier_points>4096</fourier_points></nonlocal_par></nonlocal>");
  EXPECT_NE(input_error_of([&] { (void)resolve_user_function("libPNL_PippardFitter", "PNL_PippardFitter", d.dir); }).find("no <trim_sp> element"),
            std::string::npos);
  fs::remove(d.dir / "nonlocal_startup.xml");
  EXPECT_NE(input_error_of([&] { (void)resolve_user_function("libPNL_PippardFitter", "PNL_PippardFitter", d.dir); })
                .find("reads its settings and TRIM.SP profiles from nonlocal_startup.xml: none in"),
            std::string::npos);
}

}  // namespace
}  // namespace tomo::musr::test
