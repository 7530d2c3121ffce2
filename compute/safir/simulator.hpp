// The independent Monte-Carlo of the safir problem: emission points from the analytic phantom,
// back-to-back photons, attenuation through the cylinder, hits on crystal faces (optional depth
// of interaction), time stamps of a Poisson process, optional randoms. Never uses the system
// matrix of eq. (12) (that would be the inverse crime).
#pragma once
#include <cstdint>
#include <vector>

#include "compute/safir/phantom.hpp"
#include "compute/safir/scanner.hpp"

namespace tomo::safir {

// Events in acquisition order with their time stamps; `delayed` counts delayed-window
// coincidences (randoms estimate), which are not among `events`.
struct ListMode {
  std::vector<Event> events;
  std::vector<double> time_s;  // one per event, non-decreasing (empty: no time marks)
  std::uint64_t delayed = 0;
  double duration_s = 0.0;
};

struct SimulationOptions {
  std::uint64_t events = 1000000;  // prompt coincidences to record
  double duration_s = 1.0;         // time stamps spread over [0, duration)
  std::uint64_t seed = 1;
  double randoms_fraction = 0.0;   // share of prompts that are random pairs (and as many delayed)
  // Share of prompts that are scattered pairs, a smooth background by a simple model: one photon
  // of an annihilation (after its attenuation) is detected along its direction, the other leaves
  // the annihilation point in a new uniform direction (no scatter physics: docs/pet.md).
  double scatter_fraction = 0.0;
  bool depth_of_interaction = false;
  double attenuation_length_mm = 11.4;  // LYSO at 511 keV (DOI only)
};

struct SimulationStats {
  std::uint64_t emissions = 0;  // annihilations drawn for the prompts
  std::uint64_t randoms = 0;
  std::uint64_t scattered = 0;
};

// Deterministic for a seed, whatever the thread count (chunks of events have their own streams).
ListMode simulate(const Scanner& scanner, const Phantom& phantom, const SimulationOptions& o,
                  SimulationStats* stats = nullptr);

}  // namespace tomo::safir
