// The independent Monte-Carlo: deterministic for a seed on any thread count, valid crystal ids,
// sorted time stamps over the duration, attenuation and randoms as configured.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "compute/safir/simulator.hpp"

namespace tomo::safir {
namespace {

Phantom point(std::array<double, 3> at, double r = 0.2) {
  Phantom p;
  p.spheres = {{at, r, 1.0}};
  return p;
}

TEST(SafirSimulator, SameEventsOnAnyThreadCountAndValidIds) {
  Scanner sc;
  SimulationOptions o;
  o.events = 70000;
  o.duration_s = 5.0;
  const int nt = omp_get_max_threads();
  omp_set_num_threads(1);
  const ListMode one = simulate(sc, point({3, 0, 0}), o);
  omp_set_num_threads(std::max(2, nt));
  const ListMode many = simulate(sc, point({3, 0, 0}), o);
  omp_set_num_threads(nt);
  ASSERT_EQ(one.events.size(), o.events);
  for (std::size_t i = 0; i < one.events.size(); ++i) {
    ASSERT_EQ(one.events[i].a, many.events[i].a);
    ASSERT_EQ(one.events[i].b, many.events[i].b);
    ASSERT_LT(one.events[i].a, sc.crystal_count());
    ASSERT_NE(one.events[i].a, one.events[i].b);
  }
  EXPECT_TRUE(std::is_sorted(one.time_s.begin(), one.time_s.end()));
  EXPECT_GE(one.time_s.front(), 0.0);
  EXPECT_LT(one.time_s.back(), 5.0);
  EXPECT_GT(one.time_s.back(), 4.9);  // 70 000 events of a Poisson process fill the duration
}

// The time stamps' gaps are one formula of IEEE operations (the same bits on the device): against
// libm's −log1p(−u) they stay within 2 ulp, on draws of a stream and at the ends of [0, 1).
TEST(SafirSimulator, ExponentialGapIsLibmsWithinTwoUlp) {
  const auto ulps = [](double u) {
    const double want = -std::log1p(-u), got = mc::exponential_gap(u);
    if (want == 0) return got == 0 ? 0.0 : 1e300;
    return std::fabs(got - want) / (std::nextafter(want, 1e300) - want);
  };
  double worst = 0, mean = 0;
  CounterRng rng(11, 5);
  constexpr int kDraws = 1 << 20;
  for (int i = 0; i < kDraws; ++i) {
    const double e = ulps(rng.uniform());
    worst = std::max(worst, e);
    mean += e / kDraws;
  }
  EXPECT_LE(worst, 2.0);
  EXPECT_LT(mean, 0.5);
  // u = 0 (1 − u = 1), the largest u (1 − u = 2^−53), both sides of √½ and √2 in 1 − u, tiny u.
  for (const double u : {0.0, 1.0 - 0x1.0p-53, 1.0 - 0.70710678118654746, 1.0 - 0.70710678118654757, 0x1.0p-53,
                         0x1.0p-30, 0.5, 0.25, 0.75})
    EXPECT_LE(ulps(u), 2.0) << "u = " << u;
  EXPECT_EQ(mc::exponential_gap(0.0), 0.0);
  EXPECT_NEAR(mc::exponential_gap(1.0 - 0x1.0p-53), 53 * std::log(2.0), 1e-13);
}

TEST(SafirSimulator, TimeStampsAreOrderStatisticsOfAPoissonProcess) {
  // T·S_i / S_{N+1}: sorted, in [0, T); spread as N sorted uniforms (each stamp's mean T·i/(N+1),
  // the gaps' mean T/(N+1) and the gap between the stamps' quarter points T/4 ± a few σ).
  constexpr std::uint64_t kN = 100000;  // 7 blocks of gaps, the last one partial
  const auto t = time_stamps(kN, 2.0, 9);
  ASSERT_EQ(t.size(), kN);
  EXPECT_TRUE(std::is_sorted(t.begin(), t.end()));
  EXPECT_GE(t.front(), 0.0);
  EXPECT_LT(t.back(), 2.0);
  // The i-th of N sorted uniforms has σ ≤ T/(2√N): the quartiles sit within 5σ of T/4, T/2, 3T/4.
  const double sigma = 2.0 / (2.0 * std::sqrt(double(kN)));
  for (const int q : {1, 2, 3}) EXPECT_NEAR(t[kN * q / 4], 0.5 * q, 5 * sigma) << "quartile " << q;
  // Gaps of a Poisson process: exponential, so their variance equals their mean squared.
  double m1 = 0, m2 = 0;
  for (std::size_t i = 1; i < kN; ++i) {
    const double g = t[i] - t[i - 1];
    m1 += g / (kN - 1);
    m2 += g * g / (kN - 1);
  }
  EXPECT_NEAR(m1, 2.0 / kN, 0.02 * 2.0 / kN);
  EXPECT_NEAR((m2 - m1 * m1) / (m1 * m1), 1.0, 0.05);
  // Same seed, same stamps; another seed, others.
  EXPECT_TRUE(time_stamps(kN, 2.0, 9) == t);
  EXPECT_FALSE(time_stamps(kN, 2.0, 10) == t);
}

TEST(SafirSimulator, BackToBackPairsPassNearTheSource) {
  // Every LOR of a point source passes within the crystal size of it (no DOI, no randoms).
  Scanner sc;
  SimulationOptions o;
  o.events = 2000;
  const std::array<double, 3> src{5.0, -3.0, 10.0};
  const ListMode lm = simulate(sc, point(src, 0.01), o);
  const auto pos = sc.positions();
  double worst = 0;
  for (const Event& e : lm.events) {
    const auto& a = pos[e.a];
    const auto& b = pos[e.b];
    double d[3], w[3];
    for (int i = 0; i < 3; ++i) {
      d[i] = b[i] - a[i];
      w[i] = src[i] - a[i];
    }
    const double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    const double t = (w[0] * d[0] + w[1] * d[1] + w[2] * d[2]) / dd;
    double dist2 = 0;
    for (int i = 0; i < 3; ++i) dist2 += (w[i] - t * d[i]) * (w[i] - t * d[i]);
    worst = std::max(worst, std::sqrt(dist2));
  }
  std::printf("largest LOR distance from a point source: %.3f mm\n", worst);
  EXPECT_LT(worst, 1.6);  // crystal face 2 mm: half a face at each end, projected
}

TEST(SafirSimulator, AttenuationCostsEmissionsAndRandomsAreCounted) {
  Scanner sc;
  SimulationOptions o;
  o.events = 5000;
  Phantom p = point({0, 0, 0});
  p.mu_per_mm = 0.0;
  SimulationStats clear, absorbed;
  (void)simulate(sc, p, o, &clear);
  p.mu_per_mm = 0.0096;
  (void)simulate(sc, p, o, &absorbed);
  // Centre of a Ø50 mm cylinder: the pair crosses 50 mm / sin θ, and detected pairs have
  // sin θ > 0.84 (the scanner's axial acceptance): survival between e^(−0.48/0.84) and e^(−0.48).
  const double ratio = double(clear.emissions) / double(absorbed.emissions);
  std::printf("pair survival through the cylinder: %.4f\n", ratio);
  EXPECT_GT(ratio, std::exp(-0.0096 * 50 / 0.84) * 0.97);
  EXPECT_LT(ratio, std::exp(-0.0096 * 50) * 1.03);
  o.randoms_fraction = 0.2;
  SimulationStats r;
  const ListMode lm = simulate(sc, p, o, &r);
  EXPECT_NEAR(double(r.randoms) / o.events, 0.2, 0.03);
  EXPECT_EQ(lm.delayed, r.randoms);
}

}  // namespace
}  // namespace tomo::safir
