// The independent Monte-Carlo of the safir problem: emission points from the analytic phantom,
// back-to-back photons, attenuation through the cylinder, hits on crystal faces (optional depth
// of interaction), time stamps of a Poisson process, optional randoms. Never uses the system
// matrix of eq. (12) (that would be the inverse crime).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compute/core/fill_allocator.hpp"
#include "compute/safir/phantom.hpp"
#include "compute/safir/scanner.hpp"
#include "compute/safir/simulator_math.hpp"

namespace tomo::safir {

// Events in acquisition order with their time stamps; `delayed` counts delayed-window
// coincidences (randoms estimate), which are not among `events`. Both arrays are FillVectors
// (13.9 M events are 111 MB each): resize(n) leaves them for their maker to fill.
struct ListMode {
  FillVector<Event> events;
  FillVector<double> time_s;  // one per event, non-decreasing (empty: no time marks)
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

// Prompt event e draws from its own stream (CounterRng with the seed and stream e), so the events
// depend on the seed only: not on the thread count, the processes of an mpirun job (each runs its
// chunks of kChunkEvents, gathered afterwards) or the device (the cuda generator makes the same
// events). InputError for events = 0 or a phantom the scanner (almost) cannot see.
ListMode simulate(const Scanner& scanner, const Phantom& phantom, const SimulationOptions& o,
                  SimulationStats* stats = nullptr);

// Events per chunk of the split over the processes of an mpirun job (process_share.hpp).
inline constexpr std::uint64_t kChunkEvents = std::uint64_t(1) << 15;

// What every generator of simulate()'s events runs on: the per-event parameters, the sources'
// cumulative weights and the spheres. InputError for events = 0, a bad fraction or a phantom
// without activity.
struct EventSetup {
  mc::Params params{};
  std::vector<double> cdf;     // params.n_sources values
  std::vector<mc::Ball> balls;  // params.n_sources − 1 spheres
};
EventSetup event_setup(const Scanner& scanner, const Phantom& phantom, const SimulationOptions& o);

// The InputError of a phantom from which no event was found in mc::Params::max_tries attempts.
[[noreturn]] void throw_unseen();

// The time stamps of `events` prompts over [0, duration): the order statistics of a Poisson
// process, T·S_i / S_{N+1} of exponential sums, the gaps drawn from counter-based streams of their
// own (mc::exponential_gap, no libm) and summed in fixed blocks, so every generator and thread count
// gets the same stamps: the cuda generator makes them on the device, bit for bit these.
FillVector<double> time_stamps(std::uint64_t events, double duration_s, std::uint64_t seed);

// A generator of simulate()'s list mode on a backend: "cpu" (simulate itself, the reference;
// compute/safir/cpu_simulator.cpp) and "cuda" (cuda/safir/cuda_simulator.cpp): for the same seed
// the same events, stamps and counts.
class EventGenerator {
 public:
  virtual ~EventGenerator() = default;
  virtual ListMode simulate(const Scanner& scanner, const Phantom& phantom, const SimulationOptions& o,
                            SimulationStats* stats) = 0;
  virtual std::string describe() const = 0;
  // simulate() returns the events on the host: nothing is left queued to wait for.
  virtual void synchronize() {}
};

}  // namespace tomo::safir
