// libFitPofB's TLondon1D2L, TLondon1D3L and TLondon1D3LS as native built-ins
// (compute/musr/bmw/london_hs_function.hpp): the known arguments are folded into the tables, at
// most three stay free. Checked against an independent computation of the bilayer
// (tests/musr/reference/london_layers_reference.py), TLondon1D1L (the layers with one λ are one
// film), the library's two trilayer forms against each other, the gradient against differences
// of the value, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "compute/musr/fit_problem.hpp"
#include "compute/musr/user_fcn.hpp"
#include "tests/musr/bmw_test_files.hpp"

namespace tomo::musr::test {
namespace {

// fn(par1 … parN), the parameters listed in `fixed` fixed at their values in `par`.
Program layers_program(const std::string& fn, const std::vector<double>& par, const std::vector<int>& fixed) {
  auto f = resolve_user_function("libFitPofB", fn, kBmwDir);
  ProgramBuilder b(static_cast<int>(par.size()));
  for (int i : fixed) b.set_fixed(i, par[static_cast<std::size_t>(i)]);
  std::vector<std::int32_t> args;
  for (int i = 0; i < static_cast<int>(par.size()); ++i) args.push_back(b.param(i));
  return b.finish(build_user_function(b, *f, args, b.time()));
}

TEST(MusrLondonLayersFunction, BilayerMatchesTheReference) {
  // tests/musr/reference/london_layers_reference.py: the bilayer's coefficients by a linear solve,
  // its inverse by bisection on both branches, P(t) by direct cosine sums; φ = 25°, E = 22 keV.
  struct Point {
    std::vector<double> par;  // φ E B₀ d t₁ t₂ λ₁ λ₂
    double want[5];
  };
  const Point pts[] = {
      {{25.0, 22.0, 94.717, 10.5, 30.0, 50.0, 100.0, 140.0},
       {0.90630778703665, 0.151226844011067, -0.536967992046489, -0.101971299610021, 0.723642905656594}},
      {{25.0, 22.0, 300.0, 2.0, 60.0, 40.0, 180.0, 60.0},
       {0.90630778703665, -0.930165558732834, 0.636834828994242, -0.595274700548986, -0.255708744893145}},
  };
  const double t[] = {0.0, 0.123, 1.0, 3.3, 7.77};
  for (const auto& q : pts) {
    const Program p = layers_program("TLondon1D2L", q.par, {3, 4, 5});
    for (int k = 0; k < 5; ++k) EXPECT_NEAR(evaluate(p, q.par, t[k]), q.want[k], 1e-9) << "B0 " << q.par[2] << " t " << t[k];
  }
}

TEST(MusrLondonLayersFunction, TheSymmetricTrilayerIsTheTrilayerWithLambda3EqualLambda1) {
  // φ E B₀ d t₁ t₂ t₃ λ₁ λ₂ (λ₃), B₀ and the thicknesses fixed: the library's closed form of 3LS
  // against its general 3L.
  const std::vector<double> sym = {10.0, 22.0, 94.7, 5.0, 20.0, 40.0, 30.0, 90.0, 150.0};
  std::vector<double> gen = sym;
  gen.push_back(90.0);
  const Program p3ls = layers_program("TLondon1D3LS", sym, {2, 3, 4, 5, 6}), p3l = layers_program("TLondon1D3L", gen, {2, 3, 4, 5, 6});
  for (double t : {0.0, 0.2, 1.0, 3.3, 7.7}) EXPECT_NEAR(evaluate(p3ls, sym, t), evaluate(p3l, gen, t), 1e-12) << "t = " << t;
  EXPECT_GT(std::fabs(evaluate(p3l, gen, 1.0) - [&] {
              auto other = gen;
              other[9] = 300.0;
              return evaluate(p3l, other, 1.0);
            }()),
            1e-3);  // λ₃ matters
}

TEST(MusrLondonLayersFunction, LayersOfOneLambdaAreOneFilm) {
  // Two layers of 30 and 50 nm with λ = 115.98 nm against the 80 nm film: the same cosh profile,
  // its P(B) and the muons mixed in at B₀ (dead layer, substrate) alike, to rounding.
  const std::vector<double> two = {25.0, 22.0, 94.717, 10.5, 30.0, 50.0, 115.98, 115.98};
  const std::vector<double> film = {25.0, 22.0, 94.717, 10.5, 80.0, 115.98};
  const Program p2 = layers_program("TLondon1D2L", two, {3, 4, 5}), p1 = layers_program("TLondon1D1L", film, {4});
  for (double t : {0.0, 0.123, 1.0, 3.3, 7.77}) EXPECT_NEAR(evaluate(p2, two, t), evaluate(p1, film, t), 1e-12) << "t = " << t;
}

TEST(MusrLondonLayersFunction, GradientMatchesDifferencesOfTheValue) {
  // B₀, λ₁, λ₂ free (the tables' arguments, central differences over 10⁻⁵), d, t₁, t₂ folded.
  const std::vector<double> par = {25.0, 22.0, 94.717, 10.5, 30.0, 50.0, 100.0, 140.0};
  const Program p = layers_program("TLondon1D2L", par, {3, 4, 5});
  ProgramEvaluator ev(p);
  ev.prepare(par, true);
  ASSERT_EQ(ev.used(), (std::vector<int>{0, 1, 2, 6, 7}));
  std::vector<double> g(5);
  (void)ev.value_and_gradient(2.0, g);
  const int params[] = {0, 2, 6, 7};
  const int slots[] = {0, 2, 3, 4};
  for (int k = 0; k < 4; ++k) {
    const auto i = static_cast<std::size_t>(params[k]);
    const double h = 1e-5 * par[i];
    auto up = par, dn = par;
    up[i] += h, dn[i] -= h;
    const double diff = (evaluate(p, up, 2.0) - evaluate(p, dn, 2.0)) / (up[i] - dn[i]);
    EXPECT_NEAR(g[static_cast<std::size_t>(slots[k])], diff, 1e-6 * std::fabs(diff) + 1e-9) << "parameter " << i + 1;
  }
  EXPECT_EQ(g[1], 0.0);  // the energy picks a profile
}

TEST(MusrLondonLayersFunction, AtMostThreeFreeArgumentsAndNoWeights) {
  const std::vector<double> par = {25.0, 22.0, 94.717, 10.5, 30.0, 50.0, 100.0, 140.0};
  const std::string e = input_error_of([&] { (void)layers_program("TLondon1D2L", par, {4, 5}); });
  EXPECT_NE(e.find("TLondon1D2L: at most three of its field, dead layer, thickness and lambda arguments may be free"), std::string::npos) << e;
  EXPECT_NE(e.find("free here: field (argument 3), deadlayer (argument 4), lambda1 (argument 7), lambda2 (argument 8)"), std::string::npos) << e;
  // Every one of them fixed: one table point, folded alike.
  const Program all = layers_program("TLondon1D2L", par, {2, 3, 4, 5, 6, 7});
  EXPECT_NEAR(evaluate(all, par, 1.0), evaluate(layers_program("TLondon1D2L", par, {3, 4, 5}), par, 1.0), 1e-15);
  auto f = resolve_user_function("libFitPofB", "TLondon1D3L", kBmwDir);
  EXPECT_EQ(f->arity_error(14), "takes 10 arguments here (the layer weights of its 14-argument form are not provided), got 14");
  EXPECT_NE(input_error_of([&] {
              auto bad = par;
              bad[7] = -1.0;
              (void)evaluate(layers_program("TLondon1D2L", bad, {3, 4, 5}), bad, 1.0);
            }).find("TLondon1D2L: lambda2 -1.000000 nm is not positive"),
            std::string::npos);
}

}  // namespace
}  // namespace tomo::musr::test
