// libFitPofB's London films (compute/musr/bmw/london_1d.hpp): the one-layer film (TLondon1D_1L)
// and the bilayer (TLondon1D_2L) against their closed forms and boundary conditions, their
// inverses branch by branch, the library's quirks, and their P(B) against a direct integration
// over depth of the 22 keV TRIM.SP profile.
#include <gtest/gtest.h>

#include <cmath>

#include "compute/musr/bmw/field_distribution.hpp"
#include "compute/musr/bmw/london_1d.hpp"
#include "tests/musr/bmw_test_files.hpp"

namespace tomo::musr::test {
namespace {

using bmw::InverseBranches;

// Every branch of the inverse maps back to b, with dz/dB the reciprocal slope there.
void expect_inverse_consistent(const bmw::InverseFieldProfile& p, double b, int branches) {
  InverseBranches br;
  ASSERT_EQ(p.inverse(b, br), branches) << "B = " << b;
  for (int j = 0; j < branches; ++j) {
    EXPECT_NEAR(p.field(br[j].z), b, 1e-10 * b) << "B = " << b << ", branch " << j;
    const double h = 1e-5;
    const double slope = (p.field(br[j].z + h) - p.field(br[j].z - h)) / (2 * h);
    EXPECT_NEAR(br[j].dz_db, 1.0 / slope, 1e-5 * std::fabs(br[j].dz_db)) << "B = " << b << ", branch " << j;
    if (j > 0) {
      EXPECT_LT(br[j - 1].z, br[j].z);
    }
  }
}

TEST(MusrLondonFilm, CoshProfileAndItsTwoBranches) {
  const double b0 = 100.0, d = 5.0, t = 80.0, l = 50.0;
  const bmw::LondonFilm f(b0, d, t, l);
  for (double z : {5.0, 20.0, 45.0, 70.0, 85.0})
    EXPECT_NEAR(f.field(z), b0 * std::cosh((z - d - t / 2) / l) / std::cosh(t / (2 * l)), 1e-12 * b0) << "z = " << z;
  EXPECT_EQ(f.field(4.9), b0);
  EXPECT_EQ(f.field(85.1), b0);
  EXPECT_NEAR(f.b_min(), b0 / std::cosh(t / (2 * l)), 1e-12 * b0);
  for (double b : {f.b_min() + 1e-3, 80.0, 99.0}) {
    expect_inverse_consistent(f, b, 2);
    InverseBranches br;
    (void)f.inverse(b, br);
    EXPECT_NEAR(br[0].z + br[1].z, 2 * d + t, 1e-9);  // symmetric about the film's middle
  }
  InverseBranches br;
  EXPECT_EQ(f.inverse(f.b_min(), br), 0);
  EXPECT_EQ(f.inverse(100.5, br), 0);
}

TEST(MusrLondonFilm, TheLibrarysRaisedRatio) {
  // c₁/c₀ = e^(−(2d + t)/λ) is raised to 10⁻⁶ before the logarithm. d = 0, t = 800, λ = 50: the
  // minimum is put at ½λ ln 10⁶ = 345 nm instead of 400 nm, and fields below B(345 nm) have no depth.
  const bmw::LondonFilm f(100.0, 0.0, 800.0, 50.0);
  EXPECT_NEAR(f.b_min(), f.field(0.5 * 50.0 * std::log(1e6)), 1e-12);
  EXPECT_GT(f.b_min(), f.field(400.0));
  InverseBranches br;
  EXPECT_EQ(f.inverse(0.5 * (f.b_min() + f.field(400.0)), br), 0);
  // d = 400, t = 20, λ = 50: that point lies before the film, so B_min = 0 and only the branch
  // beyond the middle counts.
  const bmw::LondonFilm g(100.0, 400.0, 20.0, 50.0);
  EXPECT_EQ(g.b_min(), 0.0);
  ASSERT_EQ(g.inverse(0.5 * (g.field(410.0) + 100.0), br), 1);
  EXPECT_GT(br[0].z, 410.0);
  EXPECT_NEAR(g.field(br[0].z), 0.5 * (g.field(410.0) + 100.0), 1e-9);
  // Negative thickness and a tiny λ are clamped for the range, not for the coefficients.
  const bmw::LondonFilm h(100.0, -3.0, 40.0, 0.01);
  EXPECT_EQ(h.field(-0.5), 100.0);
}

TEST(MusrLondonBilayer, BoundaryConditionsAndBranches) {
  const double b0 = 100.0, d = 3.0, t1 = 40.0, t2 = 60.0, l1 = 80.0, l2 = 150.0;
  const bmw::LondonBilayer f(b0, d, t1, t2, l1, l2);
  EXPECT_NEAR(f.field(d), b0, 1e-10 * b0);
  EXPECT_NEAR(f.field(d + t1 + t2), b0, 1e-10 * b0);
  // B and λ²·dB/dz (the vector potential) continuous at the inner interface.
  const double zi = d + t1, h = 1e-6;
  EXPECT_NEAR(f.field(zi - h), f.field(zi + h), 1e-5);
  const double left = (f.field(zi - h) - f.field(zi - 2 * h)) / h, right = (f.field(zi + 2 * h) - f.field(zi + h)) / h;
  EXPECT_NEAR(l1 * l1 * left, l2 * l2 * right, 1e-4 * std::fabs(l1 * l1 * left));
  // London's equation B'' = B/λ² in each layer.
  for (auto [z, l] : {std::pair{20.0, l1}, std::pair{80.0, l2}}) {
    const double e = 1e-3;
    const double second = (f.field(z + e) - 2 * f.field(z) + f.field(z - e)) / (e * e);
    EXPECT_NEAR(second, f.field(z) / (l * l), 1e-4 * f.field(z) / (l * l)) << "z = " << z;
  }
  EXPECT_LT(f.b_min(), f.field(zi));
  for (double b : {f.b_min() + 1e-3, 0.5 * (f.b_min() + b0), 99.9}) {
    InverseBranches br;
    const int n = f.inverse(b, br);
    EXPECT_GE(n, 2);
    expect_inverse_consistent(f, b, n);
  }
  // Equal λ: the single film of thickness t₁ + t₂.
  const bmw::LondonBilayer same(b0, d, t1, t2, l1, l1);
  const bmw::LondonFilm film(b0, d, t1 + t2, l1);
  for (double z : {10.0, 43.0, 60.0, 100.0}) EXPECT_NEAR(same.field(z), film.field(z), 1e-10 * b0) << "z = " << z;
  EXPECT_NEAR(same.b_min(), film.b_min(), 1e-10 * b0);
}

TEST(MusrLondonBilayer, RefusesWhatTheLibraryAsserts) {
  EXPECT_EQ(input_error_of([] { (void)bmw::LondonBilayer(100.0, -1.0, 40.0, 60.0, 80.0, 150.0); }),
            "London bilayer: thicknesses must be ≥ 0 and lambdas non-zero");
}

// ⟨B⟩ of P(B) against ∫B(z)n(z)dz/∫n(z)dz over the layers, on a fine depth grid. The library
// samples the density at the bins instead of integrating over them: where it diverges as
// 1/√(B − B_min) at a film's minimum that moves the mean by up to half a bin (0.25 G).
double mean_of_pofb(const bmw::InverseFieldProfile& p, const bmw::TrimSpProfile& n) {
  const auto g = bmw::pofb_grid(0.01, 0.5);
  const auto pb = bmw::field_distribution(g, p, n);
  double m = 0.0;
  for (std::size_t i = 0; i < pb.size(); ++i) m += 0.5 * (0.5 * static_cast<double>(i)) * pb[i];
  return m;
}
double mean_by_depth(const bmw::InverseFieldProfile& p, const bmw::TrimSpProfile& n, double from, double to) {
  double num = 0.0, den = 0.0;
  const int steps = 200000;
  for (int k = 0; k < steps; ++k) {
    const double z = from + (to - from) * (k + 0.5) / steps;
    num += p.field(z) * bmw::trim_sp_density(n, z);
    den += bmw::trim_sp_density(n, z);
  }
  return num / den;
}

TEST(MusrLondonFilms, FieldDistributionMeanMatchesTheDepthIntegral) {
  const bmw::TrimSpProfile n = profile22();
  const bmw::LondonFilm film(100.0, 5.0, 120.0, 60.0);
  EXPECT_NEAR(mean_of_pofb(film, n), mean_by_depth(film, n, 5.0, 125.0), 0.25);
  const bmw::LondonBilayer bi(100.0, 5.0, 50.0, 70.0, 60.0, 200.0);
  EXPECT_NEAR(mean_of_pofb(bi, n), mean_by_depth(bi, n, 5.0, 125.0), 0.25);
  const bmw::LondonHalfSpace hs(100.0, 5.0, 60.0);
  EXPECT_NEAR(mean_of_pofb(hs, n), mean_by_depth(hs, n, 5.0, 200.0), 0.05);
}

}  // namespace
}  // namespace tomo::musr::test
