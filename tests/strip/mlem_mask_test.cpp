// strip's ρ = ρ'/s (eq. 6) is 0 outside the field of view (s below
// strip.sensitivity_threshold × max s), where the division by a vanishing s blew up.
#include <gtest/gtest.h>

#include <vector>

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

}  // namespace
}  // namespace tomo::strip
