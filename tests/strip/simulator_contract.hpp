// The strip::PhantomGenerator contract (included by simulator_contract_test.cpp for cpu and
// simulator_contract_gpu_test.cpp for cuda): for one seed a backend's events are
// simulate_phantom's — the same count, the same emission and sample counts, and every event equal
// within one float32 ulp (only the device's libm may move a double by a few ulps before its
// rounding to float; a flipped hit test, expected ~1e-8 per event, would change a slot's draws:
// 2 of 2·10⁵ are allowed). Bad input is refused as the cpu refuses it.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "compute/core/error.hpp"
#include "compute/strip/phantom.hpp"
#include "compute/strip/simulator.hpp"
#include "tests/support/backend_contract.hpp"

namespace tomo::strip::test {

class StripSimulatorContract : public tomo::test::BackendContract<PhantomGenerator> {};

inline bool within_one_ulp(float a, float b) { return a == b || std::nextafter(a, b) == b; }

TEST_P(StripSimulatorContract, EventsEqualTheHostSimulatorsForTheSameSeed) {
  const StripGeometry g = StripGeometry::covering(130.0, 300.0, 4.0);
  const Resolution res{10.0, 40.0};
  const std::uint64_t count = 200000;
  SimulationStats want_stats, got_stats;
  const auto want = simulate_phantom(g, res, StripPhantom::appendix_a(), count, 11, &want_stats);
  auto gen = BackendRegistry<PhantomGenerator>::instance().create(backend());
  const auto got = gen->simulate(g, res, StripPhantom::appendix_a(), count, 11, &got_stats);
  gen->synchronize();
  ASSERT_EQ(got.size(), count);
  std::uint64_t other = 0;
  for (std::size_t i = 0; i < count; ++i)
    other += !(within_one_ulp(got[i].z_u, want[i].z_u) && within_one_ulp(got[i].z_d, want[i].z_d) &&
               within_one_ulp(got[i].dl, want[i].dl));
  EXPECT_LE(other, 2u);
  if (is_cpu()) {
    EXPECT_EQ(other, 0u);
    EXPECT_EQ(got_stats.emissions, want_stats.emissions);
    EXPECT_EQ(got_stats.samples, want_stats.samples);
  }
  EXPECT_EQ(got_stats.detected, count);
  EXPECT_GT(want_stats.emissions, count);  // the strips miss some emissions
  EXPECT_FALSE(gen->describe().empty());
}

TEST_P(StripSimulatorContract, APhantomTheStripsCannotSeeIsRefused) {
  const StripGeometry g = StripGeometry::covering(130.0, 300.0, 4.0);
  StripPhantom far;
  far.rows.push_back({10000.0, 0.0, 5.0, 5.0, 0.0, 1.0});  // x along the strips: far beyond their ends
  auto gen = BackendRegistry<PhantomGenerator>::instance().create(backend());
  EXPECT_THROW((void)gen->simulate(g, {10.0, 40.0}, far, 1000, 1, nullptr), InputError);
}

}  // namespace tomo::strip::test
