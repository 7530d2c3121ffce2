// libFitPofB's London half-space B(z) (compute/musr/bmw/london_1d.hpp) in closed form, and its
// P(B) (compute/musr/bmw/field_distribution.hpp) against the moments of an independent
// computation (tests/musr/reference/london_hs_reference.py).
#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "compute/musr/bmw/field_distribution.hpp"
#include "compute/musr/bmw/london_1d.hpp"
#include "tests/musr/bmw_test_files.hpp"

namespace tomo::musr::test {
namespace {

constexpr double kGammaBar = 0.0135538817;
constexpr int kM = 14756;  // the grid of Δt = 0.01 µs, ΔB = 0.5 G: ⌊14755.9⌋ rounded up to even

TEST(MusrLondonHalfSpace, FieldAndInverse) {
  const bmw::LondonHalfSpace h(94.717, 10.5, 115.98);
  EXPECT_EQ(h.field(-1.0), 94.717);
  EXPECT_EQ(h.field(10.0), 94.717);
  EXPECT_NEAR(h.field(126.48), 94.717 / std::exp(1.0), 1e-12);
  EXPECT_NEAR(h.b_min(), 94.717 * std::exp(-189.5 / 115.98), 1e-12);
  EXPECT_EQ(h.b_max(), 94.717);
  bmw::InverseBranches br;
  EXPECT_EQ(h.inverse(0.0, br), 0);
  EXPECT_EQ(h.inverse(94.8, br), 0);
  for (double b : {5.0, 40.0, 94.717}) {
    ASSERT_EQ(h.inverse(b, br), 1);
    EXPECT_NEAR(h.field(br[0].z), b, 1e-12 * b);
    const double dz = 1e-6;
    EXPECT_NEAR(br[0].dz_db, dz / (h.field(br[0].z + dz) - h.field(br[0].z)), 1e-5 * std::fabs(br[0].dz_db));
  }
}

TEST(MusrLondonFieldDistribution, MomentsMatchTheReference) {
  const auto g = bmw::pofb_grid(0.01, 0.5);
  ASSERT_EQ(g.size, static_cast<std::size_t>(kM));
  EXPECT_DOUBLE_EQ(g.t_bin, 1.0 / (kGammaBar * (kM - 1) * 0.5));
  const bmw::TrimSpProfile n = profile22();
  auto moments = [&](double b0, double d, double lambda) {
    auto pb = bmw::field_distribution(g, bmw::LondonHalfSpace(b0, d, lambda), n);
    bmw::add_background(g, pb, b0, 0.005, bmw::trim_sp_layer_fraction(n, d));
    double m0 = 0, m1 = 0, m2 = 0;
    for (std::size_t i = 0; i < pb.size(); ++i) m0 += 0.5 * pb[i], m1 += 0.5 * (0.5 * i) * pb[i];
    for (std::size_t i = 0; i < pb.size(); ++i) m2 += 0.5 * (0.5 * i - m1) * (0.5 * i - m1) * pb[i];
    return std::array<double, 3>{m0, m1, m2};
  };
  const auto a = moments(94.717, 10.5, 115.98), b = moments(300.0, 0.0, 40.0);
  EXPECT_NEAR(a[0], 1.0, 1e-14);
  EXPECT_NEAR(a[1], 45.9775816169357, 1e-11);
  EXPECT_NEAR(a[2], 103.885667768603, 1e-10);
  EXPECT_NEAR(b[0], 1.0, 1e-14);
  EXPECT_NEAR(b[1], 32.6895971354117, 1e-11);
  EXPECT_NEAR(b[2], 843.341802182302, 1e-10);
}

}  // namespace
}  // namespace tomo::musr::test
