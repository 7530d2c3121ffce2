// The independent Monte-Carlo: deterministic for a seed on any thread count, valid crystal ids,
// sorted time stamps over the duration, attenuation and randoms as configured.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>

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
