// strip's ρ = ρ'/s (eq. 6) is 0 outside the field of view (s below
// strip.sensitivity_threshold × max s), where the division by a vanishing s blew up.
#include <gtest/gtest.h>

#include <vector>

#include "compute/strip/geometry.hpp"
#include "compute/strip/mlem.hpp"

namespace tomo::strip {
namespace {

TEST(StripMlemMask, RhoIsZeroWhereTheSensitivityIsBelowTheThreshold) {
  const std::vector<double> s = {1.0, 0.5, 0.009, 0.0, 0.02};
  const std::vector<double> rp = {2.0, 2.0, 2.0, 2.0, 2.0};
  const auto rho = rho_from_rho_prime(rp, s);  // default 1 %: s < 0.01 is masked
  EXPECT_DOUBLE_EQ(rho[0], 2.0);
  EXPECT_DOUBLE_EQ(rho[1], 4.0);
  EXPECT_DOUBLE_EQ(rho[2], 0.0);
  EXPECT_DOUBLE_EQ(rho[3], 0.0);
  EXPECT_DOUBLE_EQ(rho[4], 100.0);
  const auto none = rho_from_rho_prime(rp, s, 0.0);
  EXPECT_NEAR(none[2], 2.0 / 0.009, 1e-9);
  EXPECT_DOUBLE_EQ(none[3], 0.0);
  const auto strict = rho_from_rho_prime(rp, s, 0.6);
  EXPECT_DOUBLE_EQ(strict[1], 0.0);
  EXPECT_DOUBLE_EQ(strict[0], 2.0);
}

// Pixels outside the strips' field of view (|y| > R or |z| > L/2) are 0 whatever s is there.
TEST(StripMlemMask, RhoIsZeroOutsideTheStripsFieldOfView) {
  StripGeometry g;
  g.R = 10;
  g.L = 20;
  g.pixel_y = g.pixel_z = 4;
  g.n_y = 7;  // centres y = -12 .. 12: the outer two rows lie beyond the strips
  g.n_z = 7;  // centres z = -12 .. 12: the outer two columns lie beyond their ends
  const auto outside = outside_field_of_view(g);
  ASSERT_EQ(outside.size(), g.pixel_count());
  EXPECT_EQ(outside[g.index(0, 3)], 1);  // y = -12
  EXPECT_EQ(outside[g.index(3, 6)], 1);  // z = 12
  EXPECT_EQ(outside[g.index(1, 1)], 0);  // y = z = -8
  EXPECT_EQ(outside[g.index(3, 3)], 0);
  const std::vector<double> s(g.pixel_count(), 1.0), rp(g.pixel_count(), 3.0);  // s above any cut
  const auto rho = rho_from_rho_prime(rp, s, 0.01, outside);
  std::size_t zeros = 0;
  for (std::size_t i = 0; i < rho.size(); ++i) {
    EXPECT_DOUBLE_EQ(rho[i], outside[i] ? 0.0 : 3.0) << "pixel " << i;
    zeros += rho[i] == 0.0;
  }
  EXPECT_EQ(zeros, 7u * 7u - 5u * 5u);
  EXPECT_DOUBLE_EQ(rho_from_rho_prime(rp, s, 0.01)[g.index(0, 3)], 3.0);  // no mask: no cut
}

}  // namespace
}  // namespace tomo::strip
