// libFitPofB's TLondon1D1L as a native built-in (compute/musr/bmw/london_hs_function.hpp): the
// film's thickness is folded into the tables (a fixed parameter or a constant), so the table keeps
// (B₀, d, λ). Checked against the half-space that a thick film approaches, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "compute/musr/fit_problem.hpp"
#include "compute/musr/user_fcn.hpp"
#include "tests/musr/bmw_test_files.hpp"

namespace tomo::musr::test {
namespace {

// TLondon1D1L(par1, par2, par3, par4, thickness, par5): the thickness a constant, or parameter
// 6 fixed at it when `fixed`.
Program film_program(double thickness, bool fixed) {
  auto f = resolve_user_function("libFitPofB", "TLondon1D1L", kBmwDir);
  ProgramBuilder b(6);
  if (fixed) b.set_fixed(5, thickness);
  const std::vector<std::int32_t> args = {b.param(0), b.param(1), b.param(2), b.param(3),
                                          fixed ? b.param(5) : b.constant(thickness), b.param(4)};
  return b.finish(build_user_function(b, *f, args, b.time()));
}

Program half_space_program() {
  auto f = resolve_user_function("libFitPofB", "TLondon1DHS", kBmwDir);
  ProgramBuilder b(5);
  std::vector<std::int32_t> args;
  for (int i = 0; i < 5; ++i) args.push_back(b.param(i));
  return b.finish(build_user_function(b, *f, args, b.time()));
}

TEST(MusrLondonFilmFunction, ThickFilmIsTheHalfSpace) {
  // t = 1500 nm, λ = 115.98 nm: within the profile's depth (z − d < 200 nm) the film's field
  // B₀(e^(−x/λ) + e^(−(t−x)/λ))/(1 + e^(−t/λ)), x = z − d, is the half-space's B₀e^(−x/λ) to
  // e^(−(t−2x)/λ) < 2·10⁻⁴ relative, no muon reaches the substrate, and the bins below the
  // half-space's B_min map beyond every muon: P(t) agrees to 10⁻⁴.
  const Program film = film_program(1500.0, true), hs = half_space_program();
  const std::vector<double> par = {25.4956, 22.0, 94.717, 10.5, 115.98};
  std::vector<double> par6 = par;
  par6.push_back(1500.0);
  for (double t : {0.0, 0.123, 1.0, 3.3, 7.77}) EXPECT_NEAR(evaluate(film, par6, t), evaluate(hs, par, t), 1e-4) << "t = " << t;
  // The same from a constant thickness.
  EXPECT_EQ(evaluate(film_program(1500.0, false), par6, 1.0), evaluate(film, par6, 1.0));
}

TEST(MusrLondonFilmFunction, ThinFilmDiffersFromTheHalfSpace) {
  // A 20 nm film screens far less than the half-space, and the substrate's muons (beyond
  // d + t = 30.5 nm, most of them at 22 keV) are mixed in at B₀: P(t) differs.
  const std::vector<double> par = {25.4956, 22.0, 94.717, 10.5, 115.98, 20.0};
  EXPECT_GT(std::fabs(evaluate(film_program(20.0, true), par, 1.0) - evaluate(half_space_program(), {par.begin(), par.begin() + 5}, 1.0)), 1e-2);
}

TEST(MusrLondonFilmFunction, ThicknessMustBeKnownWhileBuilding) {
  auto f = resolve_user_function("libFitPofB", "TLondon1D1L", kBmwDir);
  ProgramBuilder b(6);
  std::vector<std::int32_t> args;
  for (int i = 0; i < 6; ++i) args.push_back(b.param(i));
  const std::string e = input_error_of([&] { (void)build_user_function(b, *f, args, b.time()); });
  EXPECT_NE(e.find("TLondon1D1L: the layer thickness (argument 5) must be a fixed parameter"), std::string::npos) << e;
  EXPECT_EQ(f->arity_error(6), "");
  EXPECT_NE(f->arity_error(8).find("layer weights of its 8-argument form are not provided"), std::string::npos);
  EXPECT_NE(f->arity_error(5).find("takes 6 arguments, got 5"), std::string::npos);
}

}  // namespace
}  // namespace tomo::musr::test
