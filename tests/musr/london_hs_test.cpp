// libFitPofB's TLondon1DHS as a native built-in (compute/musr/bmw/london_hs_function.hpp): P(t)
// against an independent computation (tests/musr/reference/london_hs_reference.py: the library's
// rules in pure Python, P(t) by direct cosine sums, no FFT), the limits λ → 0 (P(B) ∝ 1/B up to
// B₀) and λ → ∞ (P(B) a δ at B₀), the energy's selection, the gradient, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "compute/musr/fit_problem.hpp"
#include "compute/musr/user_fcn.hpp"
#include "tests/musr/bmw_test_files.hpp"

namespace tomo::musr::test {
namespace {

namespace fs = std::filesystem;

constexpr double kGammaBar = 0.0135538817;
constexpr int kM = 14756;  // the grid of Δt = 0.01 µs, ΔB = 0.5 G: ⌊14755.9⌋ rounded up to even

Program london_program(const fs::path& dir) {
  auto f = resolve_user_function("libFitPofB", "TLondon1DHS", dir);
  ProgramBuilder b(5);
  std::vector<std::int32_t> args;
  for (int i = 0; i < 5; ++i) args.push_back(b.param(i));
  return b.finish(build_user_function(b, *f, args, b.time()));
}

TEST(MusrLondonHS, MatchesTheDirectCosineSum) {
  const Program p = london_program(kBmwDir);
  const std::vector<double> par1 = {25.4956, 22.0, 94.717, 10.5, 115.98}, par2 = {25.4956, 22.0, 300.0, 0.0, 40.0};
  const double phase[] = {25.4956, 25.4956, 25.4956, -40.0, 0.0};
  const double t[] = {0.0, 0.123, 1.0, 3.3, 7.77};
  const double want1[] = {0.902618342567243, 0.597408981454108, -0.374362931469288, -0.0664964968944319, 0.0615227201727919};
  const double want2[] = {0.902618342567242, 0.688933882771106, -0.455473564366677, -0.0489163634060243, -0.0280751673995442};
  for (int k = 0; k < 5; ++k) {
    auto a = par1, b = par2;
    a[0] = b[0] = phase[k];
    EXPECT_NEAR(evaluate(p, a, t[k]), want1[k], 1e-12) << "t = " << t[k];
    EXPECT_NEAR(evaluate(p, b, t[k]), want2[k], 1e-12) << "t = " << t[k];
  }
  EXPECT_NEAR(evaluate(p, par1, -0.5), std::cos(25.4956 * 0.017453293), 1e-15);  // the library's cos φ before t = 0
  // Another energy within 0.05 keV picks the same profile; 5 keV another one.
  auto near = par1;
  near[1] = 22.04;
  EXPECT_EQ(evaluate(p, near, 1.0), evaluate(p, par1, 1.0));
  near[1] = 5.0;
  EXPECT_GT(std::fabs(evaluate(p, near, 1.0) - evaluate(p, par1, 1.0)), 0.1);
}

TEST(MusrLondonHS, SmallLambdaGivesOneOverBUpToTheField) {
  // λ = 10⁻⁹ nm: every bin B_i = iΔB ≤ B₀ maps to z = d + O(10⁻⁸ nm), where n changes by 10⁻⁸,
  // so P(B_i) ∝ λ/B_i: ΔB·P(B_i) = 1/(i·H) for i = 1 … 189 (H the harmonic sum); no muon
  // stops in a dead layer of 0.9 nm, so there is no background.
  const Program p = london_program(kBmwDir);
  double h = 0.0;
  for (int i = 1; i <= 189; ++i) h += 1.0 / i;
  const double tbin = 1.0 / (kGammaBar * (kM - 1) * 0.5);
  for (int k : {1, 50, 333}) {
    double want = 0.0;
    for (int i = 1; i <= 189; ++i) want += std::cos(2 * kPi * i * k / kM + 0.3) / (i * h);
    EXPECT_NEAR(evaluate(p, std::vector<double>{0.3 * 180 / kPi, 22.0, 94.717, 0.9, 1e-9}, k * tbin), want, 1e-8) << "k = " << k;
  }
}

TEST(MusrLondonHS, LargeLambdaGivesTheDeltaAtTheField) {
  // λ = 10⁹ nm and B₀ = 95 G on the bin 190: the bins below map beyond every muon, and the dead
  // layer's Gaussian (0.06 G wide) lies on the same bin to 10⁻¹⁵.
  const Program p = london_program(kBmwDir);
  const double tbin = 1.0 / (kGammaBar * (kM - 1) * 0.5);
  for (int k : {1, 37, 400, 2000}) {
    const double want = std::cos(2 * kPi * k * 190.0 / kM + 0.2);
    EXPECT_NEAR(evaluate(p, std::vector<double>{0.2 * 180 / kPi, 22.0, 95.0, 10.5, 1e9}, k * tbin), want, 1e-12) << "k = " << k;
  }
}

TEST(MusrLondonHS, GradientMatchesDifferencesOfTheValue) {
  // The tables' derivatives are central differences over 10⁻⁵ of each argument: differences of
  // the value over the same steps give them to rounding (the chain through the energy's
  // selection, the phase and the interpolation in t), differences over 10⁻⁴ the slope itself to
  // 1 % (n(z) is piecewise linear, so P(t) has kinks in B₀ and λ where a bin's depth crosses a
  // TRIM.SP row, and the dead layer's 0.06 G wide line moves weight between two bins fast).
  const Program p = london_program(kBmwDir);
  const std::vector<double> par = {25.4956, 22.0, 94.717, 10.5, 115.98};
  ProgramEvaluator ev(p);
  ev.prepare(par, true);
  ASSERT_EQ(ev.used().size(), 5u);
  for (double t : {0.3, 2.0}) {
    std::vector<double> g(5);
    (void)ev.value_and_gradient(t, g);
    EXPECT_EQ(g[1], 0.0);  // the energy picks a profile: a staircase
    for (int i : {0, 2, 4}) {
      for (double rel : {1e-5, 1e-4}) {
        const double h = rel * par[static_cast<std::size_t>(i)];
        auto up = par, dn = par;
        up[static_cast<std::size_t>(i)] += h, dn[static_cast<std::size_t>(i)] -= h;
        const double diff = (evaluate(p, up, t) - evaluate(p, dn, t)) / (up[static_cast<std::size_t>(i)] - dn[static_cast<std::size_t>(i)]);
        const double tol = i == 0 ? 1e-7 : rel == 1e-5 ? 1e-7 : 1e-2;
        EXPECT_NEAR(g[static_cast<std::size_t>(i)], diff, tol * std::fabs(diff) + 1e-10) << "t " << t << ", parameter " << i + 1 << ", step " << rel;
      }
    }
  }
}

TEST(MusrLondonHS, BadArgumentsAndSettings) {
  const Program p = london_program(kBmwDir);
  const std::string e23 = input_error_of([&] { (void)evaluate(p, std::vector<double>{0.0, 23.0, 94.717, 10.5, 115.98}, 1.0); });
  EXPECT_NE(e23.find("TLondon1DHS: no TRIM.SP profile within 0.05 keV of the energy 23.000000 keV in "), std::string::npos) << e23;
  EXPECT_NE(e23.find("(energies: 2, 5, 7.5, 10, 12, 16, 18, 20, 22, 24 keV)"), std::string::npos) << e23;
  EXPECT_NE(input_error_of([&] { (void)evaluate(p, std::vector<double>{0.0, 22.0, -1.0, 10.5, 115.98}, 1.0); })
                .find("TLondon1DHS: the field -1.000000 G is outside (0, 7377.500000) G"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { (void)evaluate(p, std::vector<double>{0.0, 22.0, 94.7, 10.5, 0.0}, 1.0); }).find("lambda 0.000000 nm is not positive"),
            std::string::npos);
  BmwFolder f("<delta_t>0.01</delta_t>\n");
  EXPECT_NE(input_error_of([&] { (void)london_program(f.dir); }).find("no <energy_list> of TRIM.SP profiles"), std::string::npos);
}

}  // namespace
}  // namespace tomo::musr::test
