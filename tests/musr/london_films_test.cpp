// libFitPofB's London films (compute/musr/bmw/london_1d.hpp): the one-layer film (TLondon1D_1L),
// the bilayer (TLondon1D_2L) and the trilayers (TLondon1D_3L, 3LS) against their closed forms and
// boundary conditions, the proximity layer on a half-space (TProximity1D_1LHS), their inverses
// branch by branch, the library's quirks, and their P(B) on the 22 keV TRIM.SP profile against
// the density found from B(z) alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>

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

// B₀ at both surfaces, B and λ²dB/dz continuous at every inner interface, B'' = B/λ² inside.
void expect_london_layers(const bmw::InverseFieldProfile& f, double b0, const std::vector<double>& interfaces,
                          const std::vector<double>& lambdas) {
  EXPECT_NEAR(f.field(interfaces.front()), b0, 1e-10 * b0);
  EXPECT_NEAR(f.field(interfaces.back()), b0, 1e-10 * b0);
  const double h = 1e-6;
  for (std::size_t k = 1; k + 1 < interfaces.size(); ++k) {
    const double zi = interfaces[k], la = lambdas[k - 1], lb = lambdas[k];
    EXPECT_NEAR(f.field(zi - h), f.field(zi + h), 1e-5) << "interface " << k;
    const double left = (f.field(zi - h) - f.field(zi - 2 * h)) / h, right = (f.field(zi + 2 * h) - f.field(zi + h)) / h;
    EXPECT_NEAR(la * la * left, lb * lb * right, 1e-4 * std::fabs(la * la * left)) << "interface " << k;
  }
  for (std::size_t k = 0; k + 1 < interfaces.size(); ++k) {
    const double z = 0.5 * (interfaces[k] + interfaces[k + 1]), e = 1e-3, l = lambdas[k];
    const double second = (f.field(z + e) - 2 * f.field(z) + f.field(z - e)) / (e * e);
    EXPECT_NEAR(second, f.field(z) / (l * l), 1e-4 * f.field(z) / (l * l)) << "layer " << k;
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
  expect_london_layers(f, b0, {d, d + t1, d + t1 + t2}, {l1, l2});
  EXPECT_LT(f.b_min(), f.field(d + t1));
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

TEST(MusrLondonTrilayer, BoundaryConditionsAndBranches) {
  const double b0 = 100.0, d = 2.0, t1 = 30.0, t2 = 40.0, t3 = 50.0;
  // The minimum in each of the three layers in turn.
  for (auto [l1, l2, l3] : {std::tuple{40.0, 300.0, 300.0}, std::tuple{90.0, 70.0, 120.0}, std::tuple{300.0, 300.0, 40.0}}) {
    const bmw::LondonTrilayer f(b0, d, t1, t2, t3, l1, l2, l3);
    expect_london_layers(f, b0, {d, d + t1, d + t1 + t2, d + t1 + t2 + t3}, {l1, l2, l3});
    for (double b : {f.b_min() + 1e-3, 0.5 * (f.b_min() + b0), 99.9}) {
      InverseBranches br;
      const int n = f.inverse(b, br);
      EXPECT_GE(n, 2) << "B = " << b;
      expect_inverse_consistent(f, b, n);
    }
    InverseBranches br;
    EXPECT_EQ(f.inverse(b0, br), 2);  // B₀ itself at both surfaces (the bilayer counts none)
  }
  // Equal λ: the single film of thickness t₁ + t₂ + t₃.
  const bmw::LondonTrilayer same(b0, d, t1, t2, t3, 60.0, 60.0, 60.0);
  const bmw::LondonFilm film(b0, d, t1 + t2 + t3, 60.0);
  for (double z : {10.0, 43.0, 80.0, 110.0}) EXPECT_NEAR(same.field(z), film.field(z), 1e-10 * b0) << "z = " << z;
  EXPECT_NEAR(same.b_min(), film.b_min(), 1e-10 * b0);
  // The library's symmetric form (TLondon1D_3LS) is its own closed form of λ₃ = λ₁.
  for (auto [l1, l2] : {std::pair{40.0, 300.0}, std::pair{90.0, 70.0}, std::pair{300.0, 40.0}}) {
    const bmw::LondonSymmetricTrilayer sym(b0, d, t1, t2, t3, l1, l2);
    const bmw::LondonTrilayer tri(b0, d, t1, t2, t3, l1, l2, l1);
    for (double z : {5.0, 31.0, 50.0, 73.0, 100.0, 121.0}) EXPECT_NEAR(sym.field(z), tri.field(z), 1e-9 * b0) << "z = " << z;
    EXPECT_NEAR(sym.b_min(), tri.b_min(), 1e-9 * b0);
    expect_london_layers(sym, b0, {d, d + t1, d + t1 + t2, d + t1 + t2 + t3}, {l1, l2, l1});
  }
  EXPECT_EQ(input_error_of([] { (void)bmw::LondonTrilayer(100.0, 0.0, 10.0, -1.0, 10.0, 50.0, 50.0, 50.0); }),
            "London trilayer: thicknesses must be ≥ 0 and lambdas non-zero");
}

TEST(MusrProximityHalfSpace, LinearThenExponentialAndTheLibrarysClamps) {
  const bmw::ProximityHalfSpace p(100.0, 80.0, 5.0, 20.0, 60.0);
  EXPECT_EQ(p.field(4.0), 100.0);
  EXPECT_NEAR(p.field(15.0), 90.0, 1e-12);
  EXPECT_NEAR(p.field(25.0), 80.0, 1e-12);
  EXPECT_NEAR(p.field(85.0), 80.0 * std::exp(-1.0), 1e-12);
  EXPECT_NEAR(p.b_min(), 80.0 * std::exp(-175.0 / 60.0), 1e-12);
  expect_inverse_consistent(p, 90.0, 1);
  expect_inverse_consistent(p, 50.0, 1);
  InverseBranches br;
  EXPECT_EQ(p.inverse(100.5, br), 0);
  // Equal fields are parted by 1 mG; a layer thinner than 1 nm sets λ to 1 nm.
  EXPECT_NEAR(bmw::ProximityHalfSpace(100.0, 100.0, 0.0, 10.0, 60.0).field(10.0), 99.999, 1e-9);
  EXPECT_NEAR(bmw::ProximityHalfSpace(100.0, 80.0, 0.0, 0.5, 60.0).field(1.5), 80.0 * std::exp(-1.0), 1e-12);
}

// P(B_i) of the library's rule against the density found from B(z) alone: every depth where
// B(z) crosses B_i on a fine grid (refined linearly), n(z)/|dB/dz| summed over them, dB/dz by a
// central difference. Up to the normalisation (the library normalises its samples) the two agree
// bin by bin, which checks each closed-form inverse branch and its derivative.
void expect_density_shape(const bmw::InverseFieldProfile& p, const bmw::TrimSpProfile& n, double from, double to) {
  const auto g = bmw::pofb_grid(0.01, 0.5);
  const auto pb = bmw::field_distribution(g, p, n);
  std::vector<double> found(pb.size(), 0.0);
  const double dz = 1e-3;
  for (double z = from; z + dz <= to; z += dz) {
    const double b0 = p.field(z), b1 = p.field(z + dz);
    for (auto i = static_cast<std::size_t>(std::ceil(std::min(b0, b1) / 0.5)); 0.5 * static_cast<double>(i) < std::max(b0, b1); ++i) {
      const double bi = 0.5 * static_cast<double>(i), zr = z + dz * (bi - b0) / (b1 - b0), h = 1e-7;
      const double slope = (p.field(zr + h) - p.field(zr - h)) / (2 * h);
      if (i < found.size()) found[i] += bmw::trim_sp_density(n, zr) / std::fabs(slope);
    }
  }
  // The ratio on the bins above B_min + 1 G and below B₀.
  double ratio = 0.0;
  int bins = 0;
  for (std::size_t i = 0; i < pb.size(); ++i) {
    const double b = 0.5 * static_cast<double>(i);
    if (b < p.b_min() + 1.0 || b >= p.b_max() || found[i] == 0.0) continue;
    if (ratio == 0.0) ratio = pb[i] / found[i];
    EXPECT_NEAR(pb[i] / found[i], ratio, 1e-6 * ratio) << "B = " << b << " (B_min " << p.b_min() << ")";
    ++bins;
  }
  EXPECT_GE(bins, 10);
}

TEST(MusrLondonFilms, FieldDistributionsMatchTheDensityOverDepth) {
  const bmw::TrimSpProfile n = profile22();
  expect_density_shape(bmw::LondonFilm(100.0, 5.0, 120.0, 60.0), n, 5.0, 125.0);
  expect_density_shape(bmw::LondonBilayer(100.0, 5.0, 50.0, 70.0, 60.0, 200.0), n, 5.0, 125.0);
  expect_density_shape(bmw::LondonTrilayer(100.0, 5.0, 30.0, 40.0, 50.0, 90.0, 70.0, 120.0), n, 5.0, 125.0);
  expect_density_shape(bmw::LondonSymmetricTrilayer(100.0, 5.0, 30.0, 40.0, 50.0, 90.0, 70.0), n, 5.0, 125.0);
  expect_density_shape(bmw::ProximityHalfSpace(100.0, 80.3, 5.0, 20.0, 60.0), n, 5.0, 200.0);  // B₁ off the bins: a kink
  const bmw::LondonHalfSpace hs(100.0, 5.0, 60.0);
  expect_density_shape(hs, n, 5.0, 200.0);
  // The half-space's density has no singularity: its mean is the mean over depth.
  const auto g = bmw::pofb_grid(0.01, 0.5);
  const auto pb = bmw::field_distribution(g, hs, n);
  double mean = 0.0, num = 0.0, den = 0.0;
  for (std::size_t i = 0; i < pb.size(); ++i) mean += 0.5 * (0.5 * static_cast<double>(i)) * pb[i];
  for (double z = 5.0 + 5e-4; z < 200.0; z += 1e-3) num += hs.field(z) * bmw::trim_sp_density(n, z), den += bmw::trim_sp_density(n, z);
  EXPECT_NEAR(mean, num / den, 0.01);
}

}  // namespace
}  // namespace tomo::musr::test
