// Sensitivity s(y, z) of [Bialas2015] eq. (4) against a direct Monte-Carlo estimate (isotropic angles,
// count pairs hitting both strips), and the simulator's detected fraction against it.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "compute/strip/geometry.hpp"
#include "compute/strip/simulator.hpp"

namespace tomo::strip {
namespace {

TEST(StripSensitivity, MatchesDirectMonteCarlo) {
  const double R = 130.0, L = 300.0, pi = 3.14159265358979323846;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> uy(-R + 2.0, R - 2.0), uz(-0.5 * L, 0.5 * L), uth(-0.5 * pi, 0.5 * pi);
  const int n = 200000;
  for (int p = 0; p < 25; ++p) {
    const double y = uy(rng), z = uz(rng);
    int hits = 0;
    for (int i = 0; i < n; ++i) {
      const double t = std::tan(uth(rng));
      // A line through (y, z) at angle θ from the y axis: z = z0 + (y' − y) tan θ.
      if (std::abs(z + (R - y) * t) <= 0.5 * L && std::abs(z - (R + y) * t) <= 0.5 * L) ++hits;
    }
    const double s = sensitivity(R, L, y, z), mc = double(hits) / n;
    EXPECT_NEAR(mc, s, 4.0 * std::sqrt(s * (1 - s) / n) + 1e-6) << "at y = " << y << ", z = " << z;
  }
  EXPECT_NEAR(sensitivity(R, L, 0, 0), 2.0 * std::atan(150.0 / 130.0) / pi, 1e-12);
  EXPECT_EQ(sensitivity(R, L, 0, 200.0), 0.0);
}

TEST(StripSensitivity, SimulatorDetectsTheFractionOfEq4) {
  const StripGeometry g = StripGeometry::covering(130.0, 300.0, 4.0);
  for (auto [y, z] : {std::pair{0.0, 0.0}, std::pair{60.0, 100.0}, std::pair{-100.0, -40.0}}) {
    const std::uint64_t n = 400000;
    const double frac = double(simulate_point(g, {10.0, 40.0}, y, z, n, 99).size()) / n;
    const double s = sensitivity(g.R, g.L, y, z);
    EXPECT_NEAR(frac, s, 4.0 * std::sqrt(s * (1 - s) / n)) << "at y = " << y << ", z = " << z;
  }
}

TEST(StripSensitivity, ImageIsSymmetric) {
  const StripGeometry g = StripGeometry::covering(130.0, 300.0, 4.0);
  const auto s = sensitivity_image(g);
  for (int j = 0; j < g.n_y; ++j)
    for (int k = 0; k < g.n_z; ++k) {
      EXPECT_NEAR(s[g.index(j, k)], s[g.index(g.n_y - 1 - j, g.n_z - 1 - k)], 1e-12);
      EXPECT_GT(s[g.index(j, k)], 0.0);
    }
}

}  // namespace
}  // namespace tomo::strip
