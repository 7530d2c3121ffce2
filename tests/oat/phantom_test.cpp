// The independent data of the oat problem against numerical integration: the blurred sphere
// f(ρ) against the radial integral of the 3D Gaussian blur, and the pulses (sharp N-pulse and
// blurred) against p = Γ/(4πc₀²)·∂/∂t[g/t] with g integrated numerically over the shell.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "compute/oat/phantom.hpp"

namespace tomo::oat::test {

namespace {
// Composite Simpson on [lo, hi] with n (even) intervals.
template <class F>
double simpson(F f, double lo, double hi, int n) {
  if (hi <= lo) return 0.0;
  const double h = (hi - lo) / n;
  double s = f(lo) + f(hi);
  for (int i = 1; i < n; ++i) s += (i % 2 ? 4 : 2) * f(lo + i * h);
  return s * h / 3;
}
}  // namespace

TEST(OatPhantom, BlurredSphereMatchesTheRadialBlurIntegral) {
  const BlurredSphere s{{0, 0, 0}, 3.0, 2.0, 0.7};
  for (double rho : {0.0, 0.5, 2.0, 2.9, 3.0, 3.4, 4.5, 6.0}) {
    // f(ρ) = ∫_0^a (r/ρ)/(√(2π)σ)·[e^{−(ρ−r)²/2σ²} − e^{−(ρ+r)²/2σ²}] dr (ρ > 0)
    const double r0 = std::max(rho, 1e-6), sg = s.sigma_mm;
    const double ref = s.value * simpson(
                                     [&](double r) {
                                       return r / r0 / (std::sqrt(2 * std::numbers::pi) * sg) *
                                              (std::exp(-(r0 - r) * (r0 - r) / (2 * sg * sg)) -
                                               std::exp(-(r0 + r) * (r0 + r) / (2 * sg * sg)));
                                     },
                                     0.0, s.radius_mm, 4000);
    EXPECT_NEAR(blurred_sphere_value(s, rho), ref, 1e-6) << "rho = " << rho;
  }
}

// g(R) for a radial f about a centre at distance d: 2πR/d ∫_{|d−R|}^{d+R} f(ρ)ρ dρ, then p by a
// central difference in t.
double numeric_pulse(const BlurredSphere& s, double gamma, double c0, double d, double t) {
  auto g_over_t = [&](double tt) {
    const double R = c0 * tt;
    const double lo = std::abs(d - R), hi = std::min(d + R, s.radius_mm + 10 * s.sigma_mm + 1e-9);
    return 2 * std::numbers::pi * R / d *
           simpson([&](double rho) { return blurred_sphere_value(s, rho) * rho; }, lo, std::max(lo, hi), 4000) / tt;
  };
  const double h = 1e-4;
  return gamma / (4 * std::numbers::pi * c0 * c0) * (g_over_t(t + h) - g_over_t(t - h)) / (2 * h);
}

TEST(OatPhantom, SharpNPulseMatchesNumericalIntegration) {
  const BlurredSphere s{{0, 0, 0}, 2.0, 1.5, 0.0};
  const double gamma = 0.8, c0 = 1.5, d = 20.0;
  for (double r : {18.3, 19.0, 20.0, 21.2, 21.9, 25.0}) {
    const double t = r / c0;
    EXPECT_NEAR(sphere_pulse(s, gamma, c0, d, t), numeric_pulse(s, gamma, c0, d, t), 1e-5) << "r = " << r;
  }
  EXPECT_DOUBLE_EQ(sphere_pulse(s, gamma, c0, d, 19.0 / c0), gamma * 1.5 * 1.0 / (2 * d));
}

TEST(OatPhantom, BlurredPulseMatchesNumericalIntegration) {
  const BlurredSphere s{{0, 0, 0}, 2.0, 1.5, 0.4};
  const double gamma = 0.8, c0 = 1.5, d = 20.0;
  for (double r : {17.0, 17.9, 18.5, 20.0, 21.0, 22.1, 23.0}) {
    const double t = r / c0;
    EXPECT_NEAR(sphere_pulse(s, gamma, c0, d, t), numeric_pulse(s, gamma, c0, d, t), 2e-5) << "r = " << r;
  }
}

}  // namespace tomo::oat::test
