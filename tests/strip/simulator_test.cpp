// The strip Monte-Carlo against models it does not share code with: a point source's z̃u and Δl̃
// histograms against the analytic distribution of an isotropic (2D) emission smeared by Gaussian
// resolution, integrated here by quadrature over the angle; its detected fraction against eq. (4).
// Event slots draw from streams of their own: a run's first events do not depend on its length.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "compute/strip/simulator.hpp"

namespace tomo::strip {
namespace {

constexpr double kPi = 3.14159265358979323846;

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// Expected counts of `emissions` pairs from (y0, z0) in `bins` bins of [lo, hi) of a measured
// quantity whose exact value under angle θ is mean(θ), smeared by N(0, σ²). A pair is detected
// for tan θ in [t_lo, t_hi] (both hits on the strips); θ is uniform on (−π/2, π/2).
template <class Mean>
std::vector<double> expected_counts(double emissions, double t_lo, double t_hi, Mean mean, double sigma, double lo,
                                    double hi, int bins) {
  std::vector<double> e(bins, 0.0);
  const int nodes = 20000;
  const double a = std::atan(t_lo), b = std::atan(t_hi), h = (b - a) / nodes;
  for (int k = 0; k < nodes; ++k) {
    const double m = mean(a + (k + 0.5) * h);
    for (int i = 0; i < bins; ++i) {
      const double x0 = lo + (hi - lo) * i / bins, x1 = lo + (hi - lo) * (i + 1) / bins;
      e[i] += (normal_cdf((x1 - m) / sigma) - normal_cdf((x0 - m) / sigma)) * h / kPi;
    }
  }
  for (double& v : e) v *= emissions;
  return e;
}

// χ² of observed against expected counts over the bins expecting at least 20, and their number.
std::pair<double, int> chi2(const std::vector<double>& observed, const std::vector<double>& expected) {
  double c = 0;
  int dof = 0;
  for (std::size_t i = 0; i < observed.size(); ++i)
    if (expected[i] >= 20) {
      c += (observed[i] - expected[i]) * (observed[i] - expected[i]) / expected[i];
      ++dof;
    }
  return {c, dof};
}

TEST(StripSimulator, PointSourceHistogramsFollowTheAnalyticModel) {
  const double R = 130, L = 300, y0 = 20, z0 = 10;
  const StripGeometry g = StripGeometry::covering(R, L, 4.0);
  const Resolution res{10.0, 40.0};
  const std::uint64_t emissions = 400000;
  const auto ev = simulate_point(g, res, y0, z0, emissions, 3);
  // Detected: z0 + (R − y0)t and z0 − (R + y0)t both within ±L/2.
  const double t_hi = std::min((0.5 * L - z0) / (R - y0), (0.5 * L + z0) / (R + y0));
  const double t_lo = std::max(-(0.5 * L + z0) / (R - y0), (z0 - 0.5 * L) / (R + y0));
  const double p = (std::atan(t_hi) - std::atan(t_lo)) / kPi;
  EXPECT_NEAR(p, sensitivity(R, L, y0, z0), 1e-12);
  const double sd = std::sqrt(emissions * p * (1 - p));
  EXPECT_NEAR(double(ev.size()), emissions * p, 5 * sd) << "detected " << ev.size() << " of " << emissions;

  const auto check = [&](const char* what, auto value_of, auto mean, double sigma, double lo, double hi) {
    const int bins = 40;
    std::vector<double> h(bins, 0.0);
    for (const Event& e : ev) {
      const double v = value_of(e);
      if (v >= lo && v < hi) h[std::size_t((v - lo) / (hi - lo) * bins)] += 1;
    }
    const auto [c, dof] = chi2(h, expected_counts(double(emissions), t_lo, t_hi, mean, sigma, lo, hi, bins));
    std::printf("%s: chi2 %.1f over %d bins\n", what, c, dof);
    ASSERT_GE(dof, 20);
    EXPECT_LT(c, dof + 6 * std::sqrt(2.0 * dof)) << what;  // 6σ of the χ² distribution
  };
  // z_u = z0 + (R − y0) tan θ; Δl = (R − y0)/cos θ − (R + y0)/cos θ = −2 y0 / cos θ.
  check("z_u", [](const Event& e) { return double(e.z_u); },
        [&](double th) { return z0 + (R - y0) * std::tan(th); }, res.sigma_z, -200.0, 200.0);
  check("z_d", [](const Event& e) { return double(e.z_d); },
        [&](double th) { return z0 - (R + y0) * std::tan(th); }, res.sigma_z, -200.0, 200.0);
  check("dl", [](const Event& e) { return double(e.dl); }, [&](double th) { return -2 * y0 / std::cos(th); },
        res.sigma_dl, -200.0, 120.0);
}

TEST(StripSimulator, EachSlotHasItsOwnStream) {
  // 70000 events span three chunks of the parallel loop; the first 1000 are a run of 1000.
  const StripGeometry g = StripGeometry::covering(130.0, 300.0, 4.0);
  const Resolution res{10.0, 40.0};
  SimulationStats small_stats, large_stats;
  const auto small = simulate_phantom(g, res, StripPhantom::appendix_a(), 1000, 11, &small_stats);
  const auto large = simulate_phantom(g, res, StripPhantom::appendix_a(), 70000, 11, &large_stats);
  for (std::size_t i = 0; i < small.size(); ++i) {
    ASSERT_EQ(small[i].z_u, large[i].z_u) << i;
    ASSERT_EQ(small[i].z_d, large[i].z_d) << i;
    ASSERT_EQ(small[i].dl, large[i].dl) << i;
  }
  // Another seed gives other events.
  const auto other = simulate_phantom(g, res, StripPhantom::appendix_a(), 1000, 12);
  int same = 0;
  for (std::size_t i = 0; i < small.size(); ++i) same += small[i].dl == other[i].dl;
  EXPECT_LT(same, 5);
  // Every event took at least one emission; the emissions took at least as many samples.
  EXPECT_GE(large_stats.emissions, 70000u);
  EXPECT_GE(large_stats.samples, large_stats.emissions);
  EXPECT_EQ(large_stats.detected, 70000u);
}

}  // namespace
}  // namespace tomo::strip
