// The safir::EventGenerator contract (included by simulator_contract_test.cpp for cpu and
// simulator_contract_gpu_test.cpp for cuda): for one seed a backend's list mode is simulate()'s,
// bit for bit — every crystal pair, every time stamp, the annihilation, random and scattered
// counts. Crystal ids are whole numbers and the physics is IEEE double without FMA on both sides
// (simulator_math.hpp): only the device's libm may differ from the host's in the last bit of a cos,
// atan2 or exp, which moves a hit by ~1e-13 mm and changes an id only for a hit that close to a
// crystal edge (~1e-13 per photon: none expected in these runs). The time stamps' gaps use no
// libm (simulator_math.hpp exponential_gap) and are summed in the host's order: the same bits on
// every generator, also where the blocks of gaps end. Bad input is refused as the cpu refuses it.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "compute/core/error.hpp"
#include "compute/safir/phantom.hpp"
#include "compute/safir/simulator.hpp"
#include "tests/support/backend_contract.hpp"

namespace tomo::safir::test {

class SafirSimulatorContract : public tomo::test::BackendContract<EventGenerator> {
 protected:
  // The generator's list mode against simulate()'s for the same options; returns the mismatches.
  void expect_same(const Scanner& sc, const Phantom& ph, const SimulationOptions& o) {
    SimulationStats want_stats, got_stats;
    const ListMode want = simulate(sc, ph, o, &want_stats);
    auto gen = BackendRegistry<EventGenerator>::instance().create(backend());
    const ListMode got = gen->simulate(sc, ph, o, &got_stats);
    gen->synchronize();
    ASSERT_EQ(got.events.size(), o.events);
    ASSERT_EQ(got.time_s.size(), o.events);
    std::uint64_t other = 0, self_pairs = 0;
    for (std::size_t i = 0; i < o.events; ++i) {
      other += got.events[i].a != want.events[i].a || got.events[i].b != want.events[i].b;
      self_pairs += got.events[i].a == got.events[i].b || got.events[i].a >= sc.crystal_count() ||
                    got.events[i].b >= sc.crystal_count();
    }
    EXPECT_EQ(other, 0u) << "events unlike the host's of " << o.events;
    EXPECT_EQ(self_pairs, 0u);
    EXPECT_TRUE(got.time_s == want.time_s);
    EXPECT_EQ(got_stats.emissions, want_stats.emissions);
    EXPECT_EQ(got_stats.randoms, want_stats.randoms);
    EXPECT_EQ(got_stats.scattered, want_stats.scattered);
    EXPECT_EQ(got.delayed, want.delayed);
    EXPECT_EQ(got.duration_s, o.duration_s);
    EXPECT_GT(want_stats.emissions, o.events - want_stats.randoms);  // attenuation and the gaps lose pairs
    EXPECT_FALSE(gen->describe().empty());
  }
};

TEST_P(SafirSimulatorContract, EventsEqualTheHostSimulatorsForTheSameSeed) {
  // The default scanner and phantom (Derenzo spheres in the attenuating cylinder), more events
  // than one chunk and one first launch.
  Phantom ph;
  ph.spheres = Phantom::derenzo();
  SimulationOptions o;
  o.events = 150000;
  o.seed = 7;
  expect_same(Scanner{}, ph, o);
}

TEST_P(SafirSimulatorContract, RandomsScatterAndDepthOfInteractionEqualTheHosts) {
  Scanner sc;
  sc.rings = 24;
  Phantom ph;
  ph.spheres = Phantom::derenzo();
  ph.background = 0.05;  // the cylinder is a source too
  SimulationOptions o;
  o.events = 60000;
  o.seed = 3;
  o.duration_s = 2.5;
  o.randoms_fraction = 0.2;
  o.scatter_fraction = 0.15;
  o.depth_of_interaction = true;
  expect_same(sc, ph, o);
}

TEST_P(SafirSimulatorContract, TimeStampsEqualTheHostsWhereTheBlocksOfGapsEnd) {
  // events + 1 gaps in blocks of mc::kGapBlock: the closing gap last in a full block, alone in a
  // block of its own, and several blocks with a partial last one.
  Phantom ph;
  ph.spheres = Phantom::derenzo();
  for (const std::uint64_t n : {mc::kGapBlock - 1, mc::kGapBlock, 3 * mc::kGapBlock + 123}) {
    SimulationOptions o;
    o.events = n;
    o.seed = 21;
    o.duration_s = 0.75;
    SCOPED_TRACE(n);
    expect_same(Scanner{}, ph, o);
  }
}

TEST_P(SafirSimulatorContract, APhantomTheScannerCannotSeeIsRefused) {
  Scanner sc;
  sc.rings = 8;  // ±8.8 mm axially
  Phantom far;
  far.spheres = {{{0.0, 0.0, 400.0}, 1.0, 1.0}};  // a pair from z = 400 mm never hits both ends
  SimulationOptions o;
  o.events = 10000;
  auto gen = BackendRegistry<EventGenerator>::instance().create(backend());
  try {
    (void)gen->simulate(sc, far, o, nullptr);
    ADD_FAILURE() << "no refusal";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("does not see the phantom"), std::string::npos) << e.what();
  }
}

TEST_P(SafirSimulatorContract, BadOptionsAreRefused) {
  Phantom ph;
  ph.spheres = Phantom::derenzo();
  auto gen = BackendRegistry<EventGenerator>::instance().create(backend());
  SimulationOptions none;
  none.events = 0;
  EXPECT_THROW((void)gen->simulate(Scanner{}, ph, none, nullptr), InputError);
  SimulationOptions no_trues;
  no_trues.events = 100;
  no_trues.randoms_fraction = 0.6;
  no_trues.scatter_fraction = 0.4;
  EXPECT_THROW((void)gen->simulate(Scanner{}, ph, no_trues, nullptr), InputError);
  Phantom dark;  // no background, no spheres
  EXPECT_THROW((void)gen->simulate(Scanner{}, dark, SimulationOptions{}, nullptr), InputError);
}

}  // namespace tomo::safir::test
