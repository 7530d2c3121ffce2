// The kernel P(ẽ|i) ([Bialas2015] eqs. 7–12) against a Monte-Carlo histogram of events from a point
// source made by the independent simulator: shape and absolute normalisation.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "compute/strip/kernel_math.hpp"
#include "compute/strip/simulator.hpp"

namespace tomo::strip {
namespace {

// Density of (ỹ, z̃, θ̃) from the kernel, a density in (z̃u, z̃d, Δl̃): the Jacobian
// |∂(zu, zd, Δl)/∂(y, z, θ)| = 4R / cos³θ (from zu = z + (R−y)t, zd = z − (R+y)t, Δl = −2y/cos θ).
double density_yz_theta(const KernelParams<double>& kp, double src_y, double src_z, double yt, double zt,
                        double theta) {
  const double t = std::tan(theta), sec = 1.0 / std::cos(theta);
  const auto f = make_frame<double>(zt + (kp.R - yt) * t, zt - (kp.R + yt) * t, -2.0 * yt * sec, kp);
  const double dy = src_y - f.y, dz = src_z - f.z;
  return kernel_value(f, kp, dy, dz, ellipse_form(f, dy, dz)) * 4.0 * kp.R * sec * sec * sec;
}

TEST(StripKernel, MatchesMonteCarloHistogramOfPointSource) {
  const StripGeometry g = StripGeometry::covering(130.0, 300.0, 4.0);
  const Resolution res{10.0, 40.0};
  const double src_y = 20.0, src_z = -10.0;
  const std::uint64_t emissions = 4'000'000;
  const auto events = simulate_point(g, res, src_y, src_z, emissions, 7);
  const auto kp = make_kernel_params<double>(g.R, res.sigma_z, res.sigma_dl);

  // Histogram events with θ̃ in a slab around θc over (ỹ, z̃) bins.
  const double theta_c = 0.2, half_theta = 0.05;
  const double by = 4.0, bz = 2.0, y_lo = src_y - 60.0, z_lo = src_z - 30.0;
  const int ny = 30, nz = 30;
  std::vector<double> hist(ny * nz, 0.0);
  for (const Event& e : events) {
    const auto f = make_frame<double>(e.z_u, e.z_d, e.dl, kp);
    if (std::abs(std::atan(f.tan) - theta_c) > half_theta) continue;
    const int j = static_cast<int>(std::floor((f.y - y_lo) / by)), k = static_cast<int>(std::floor((f.z - z_lo) / bz));
    if (j >= 0 && j < ny && k >= 0 && k < nz) hist[j * nz + k] += 1.0;
  }

  // Expected counts: emissions × ∫_bin density, by a 4×4×8 midpoint rule.
  const int sy = 4, sz = 4, st = 8;
  double sum_obs = 0.0, sum_exp = 0.0;
  int bins_compared = 0, bins_bad = 0;
  double worst = 0.0;
  for (int j = 0; j < ny; ++j)
    for (int k = 0; k < nz; ++k) {
      double integral = 0.0;
      for (int a = 0; a < sy; ++a)
        for (int b = 0; b < sz; ++b)
          for (int c = 0; c < st; ++c)
            integral += density_yz_theta(kp, src_y, src_z, y_lo + (j + (a + 0.5) / sy) * by,
                                         z_lo + (k + (b + 0.5) / sz) * bz,
                                         theta_c - half_theta + (c + 0.5) / st * 2.0 * half_theta);
      const double expected = emissions * integral * (by / sy) * (bz / sz) * (2.0 * half_theta / st);
      if (expected < 100.0) continue;  // the shape test uses well-populated bins (inside ~2.5σ)
      const double obs = hist[j * nz + k];
      sum_obs += obs;
      sum_exp += expected;
      ++bins_compared;
      // Per bin: 4σ Poisson plus 6 % for the Laplace (second-order) approximation of eq. (7).
      const double tol = 4.0 * std::sqrt(expected) + 0.06 * expected;
      worst = std::max(worst, std::abs(obs - expected) / expected);
      if (std::abs(obs - expected) > tol) ++bins_bad;
    }
  std::printf("kernel vs MC: %d bins, worst bin %.3f, total observed/expected %.4f\n", bins_compared, worst,
              sum_obs / sum_exp);
  ASSERT_GT(bins_compared, 100);
  EXPECT_EQ(bins_bad, 0) << "worst relative bin deviation " << worst;
  // Normalisation: the total over the compared bins within 2 % (Poisson alone ~0.3 %).
  EXPECT_NEAR(sum_obs / sum_exp, 1.0, 0.02) << "observed " << sum_obs << " expected " << sum_exp;
}

TEST(StripKernel, PeakAtReconstructedPointAndSymmetricCut) {
  const auto kp = make_kernel_params<double>(130.0, 10.0, 40.0);
  const auto f = make_frame<double>(15.0, -25.0, 30.0, kp);
  const double p0 = kernel_value(f, kp, 0.0, 0.0, 0.0);
  EXPECT_GT(p0, 0.0);
  // Moving along the ellipse's short axis lowers the kernel.
  for (double d : {1.0, 3.0, 10.0}) EXPECT_LT(kernel_value(f, kp, 0.0, d, ellipse_form(f, 0.0, d)), p0);
  // The prefactor det^{1/2}(C^{-1}) / (2π² √Q) at the origin of a θ = 0, y = 0 event.
  const auto f0 = make_frame<double>(0.0, 0.0, 0.0, kp);
  const double Q = 2.0 * 130.0 * 130.0 / 100.0;
  const double pi = 3.14159265358979323846;
  const double expected = std::sqrt(1e-2 * 1e-2 / 1600.0) / (2 * pi * pi * std::sqrt(Q));
  EXPECT_NEAR(kernel_value(f0, kp, 0.0, 0.0, 0.0) / expected, 1.0, 1e-12);
}

}  // namespace
}  // namespace tomo::strip
