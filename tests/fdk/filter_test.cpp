// FDK filter: the Ram-Lak response is the ramp |f|, the filtered projection of a disc is the
// constant μ/π (absolute scaling), windows attenuate only high frequencies, and Parker weights of
// conjugate rays sum to one.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "compute/fdk/filter.hpp"

using namespace tomo::fdk;
constexpr double kPi = std::numbers::pi;

namespace {
CArmGeometry small_geometry() {
  CArmGeometry g;
  g.projections = 100;
  g.sx = 400;
  g.sy = 4;
  g.pixel_mm = 1.0;
  return g;
}
}  // namespace

TEST(FdkFilter, RamLakResponseIsTheRamp) {
  const CArmGeometry g = small_geometry();
  FdkFilter f(g);
  const int P = f.padded_size();
  const double tau = g.virtual_pixel_mm();
  ASSERT_GE(P, 2 * g.sx);
  for (int k = P / 32; k <= P / 2; k += P / 64) {
    const double ramp = k / (P * tau);  // |f| in cycles/mm
    EXPECT_NEAR(f.response()[k], ramp, 0.01 * ramp) << "k=" << k;
  }
  EXPECT_GT(f.response()[0], 0.0);  // the sampled kernel keeps a small positive DC (no −1/2 offset error)
  EXPECT_LT(f.response()[0], 0.01 / tau);
}

TEST(FdkFilter, WindowsOnlyDampHighFrequencies) {
  const CArmGeometry g = small_geometry();
  FdkFilter ram(g), sl(g, {RampWindow::SheppLogan}), hann(g, {RampWindow::Hann});
  const int P = ram.padded_size();
  EXPECT_NEAR(sl.response()[P / 2] / ram.response()[P / 2], 2.0 / kPi, 1e-9);
  EXPECT_NEAR(hann.response()[P / 2], 0.0, 1e-12);
  EXPECT_NEAR(hann.response()[P / 8] / ram.response()[P / 8], 0.5 * (1 + std::cos(kPi / 4)), 1e-9);
  EXPECT_NEAR(sl.response()[P / 100] / ram.response()[P / 100], 1.0, 1e-3);
}

TEST(FdkFilter, DiscProjectionFiltersToMuOverPi) {
  // Parallel projection of a disc of value μ, radius R: p(s) = 2μ√(R² − s²). Its ramp-filtered
  // projection is μ/π inside the disc, so that ∫_0^π q dθ = μ (the absolute scale of FBP).
  const CArmGeometry g = small_geometry();
  FdkFilter f(g);
  const double tau = g.virtual_pixel_mm(), mu = 0.02, R = 80.0;
  std::vector<double> row(g.sx);
  for (int i = 0; i < g.sx; ++i) {
    const double s = (i - g.u0()) * tau;
    row[i] = s * s < R * R ? 2 * mu * std::sqrt(R * R - s * s) : 0.0;
  }
  f.filter_row(row);
  for (int i = 0; i < g.sx; ++i) {
    const double s = std::abs(i - g.u0()) * tau;
    if (s < 0.8 * R) {
      EXPECT_NEAR(row[i], mu / kPi, 0.01 * mu / kPi) << "s=" << s;
    }
  }
}

TEST(FdkFilter, ParkerWeightsOfConjugateRaysSumToOne) {
  CArmGeometry g;  // RabbitCT: 200° arc, fan half-angle 9.45°
  FdkFilter f(g);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> B(0.0, 200.0 * kPi / 180.0), U(0.0, g.sx - 1.0);
  for (int t = 0; t < 2000; ++t) {
    const double beta = B(rng), u = U(rng);
    const double gam = f.gamma(u);
    const double w = f.parker_weight(beta, gam);
    EXPECT_GE(w, 0.0);
    EXPECT_LE(w, 1.0);
    // The same line seen from the other side: (β + π + 2γ, −γ), or (β − π + 2γ, −γ).
    double bc = beta + kPi + 2 * gam;
    if (bc > 200.0 * kPi / 180.0) bc = beta - kPi + 2 * gam;
    if (bc < 0 || bc > 200.0 * kPi / 180.0) {
      EXPECT_NEAR(w, 1.0, 1e-12) << "ray measured once must have full weight";
      continue;
    }
    EXPECT_NEAR(w + f.parker_weight(bc, -gam), 1.0, 1e-12) << "beta=" << beta << " gamma=" << gam;
  }
  EXPECT_NEAR(f.parker_weight(0.0, 0.0), 0.0, 1e-15);
  EXPECT_NEAR(f.parker_weight(200.0 * kPi / 180.0, 0.0), 0.0, 1e-15);
}

TEST(FdkFilter, ConjugateRaySignConventionMatchesTheGeometry) {
  // γ(u) > 0 must be the counter-clockwise side: the ray through column u at β meets the circle
  // again at β + π + 2γ. Check against the actual source/detector positions.
  CArmGeometry g;
  g.projections = 2001;
  FdkFilter f(g);
  const int n = 300;
  const double u = 200.0;  // left of centre: γ > 0
  const double gam = f.gamma(u);
  EXPECT_GT(gam, 0.0);
  const auto s = g.source(n);
  const auto d = g.detector_point(n, u, g.v0());
  // Second intersection of the line s + t(d − s) with the source circle.
  const double dx = d[0] - s[0], dy = d[1] - s[1];
  const double t = -2 * (s[0] * dx + s[1] * dy) / (dx * dx + dy * dy);
  const double bc = std::atan2(s[1] + t * dy, s[0] + t * dx);
  double expect = g.angle_rad(n) + kPi + 2 * gam;
  EXPECT_NEAR(std::remainder(bc - expect, 2 * kPi), 0.0, 1e-9);
}
