// Independent Monte-Carlo simulator of the two-strip detector (it never uses the kernel):
// emission points from the phantom density, isotropic 2D emission angles, the exact hit
// positions z_u, z_d and Δl of eq. (1) for pairs hitting both strips, then Gaussian smearing.
// The per-event physics is simulator_math.hpp, shared with the CUDA generator.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compute/strip/geometry.hpp"
#include "compute/strip/phantom.hpp"
#include "compute/strip/simulator_math.hpp"

namespace tomo::pet {
class AttenuationMap;
}

namespace tomo::strip {

struct StripEfficiency;

struct SimulationStats {
  std::uint64_t emissions = 0;  // emitted pairs (accepted emission points)
  std::uint64_t detected = 0;   // pairs hitting both strips (= events returned)
  std::uint64_t samples = 0;    // sampled points (accepted or not)
};

// `count` detected events from the phantom. Event slot i draws from its own stream (CounterRng
// with the seed and stream i), so the events depend on the seed only: not on the thread count,
// the processes of an mpirun job, or the device (the CUDA generator makes the same events).
// With `mu`, each pair survives with exp(−∫μ) along its line (attenuation.hpp) or is lost; with
// `efficiency`, each is detected with ε_u(z_u)·ε_d(z_d) (normalisation.hpp) or is lost.
std::vector<Event> simulate_phantom(const StripGeometry& g, const Resolution& res, const StripPhantom& phantom,
                                    std::uint64_t count, std::uint64_t seed, SimulationStats* stats = nullptr,
                                    const pet::AttenuationMap* mu = nullptr,
                                    const StripEfficiency* efficiency = nullptr);

// Events from `emissions` pairs emitted at one point (y, z); only detected pairs are returned,
// in emission order (emission i draws from stream i).
std::vector<Event> simulate_point(const StripGeometry& g, const Resolution& res, double y, double z,
                                  std::uint64_t emissions, std::uint64_t seed);

// What every generator of simulate_phantom's events runs on: the sampling box, the bounds and
// the phantom's rows. InputError for a bad resolution, a phantom without positive density or one
// outside the strips.
struct SlotSetup {
  SlotParams params;
  std::vector<EllipseTerm> rows;
};
SlotSetup slot_setup(const StripGeometry& g, const Resolution& res, const StripPhantom& phantom);

// The InputError of a run whose phantom the strips (almost) do not see: a slot found no detected
// pair in SlotParams::max_tries points, or more than kMaxTries points were sampled per event.
[[noreturn]] void throw_starved(const StripGeometry& g);
// True when `samples` sampled points for `count` events is below the rate the simulator accepts.
bool starved_rate(std::uint64_t samples, std::uint64_t count);

// A generator of simulate_phantom's events (without attenuation or efficiencies) on a backend:
// "cpu" (simulate_phantom itself, the reference) and "cuda" (cuda/strip/cuda_simulator.cpp): for
// the same seed the same events, up to the device's libm (a few ulps of tan, log, sin and cos in
// double before the rounding to float32).
class PhantomGenerator {
 public:
  virtual ~PhantomGenerator() = default;
  virtual std::vector<Event> simulate(const StripGeometry& g, const Resolution& res, const StripPhantom& phantom,
                                      std::uint64_t count, std::uint64_t seed, SimulationStats* stats) = 0;
  virtual std::string describe() const = 0;
  // simulate() returns the events on the host: nothing is left queued to wait for.
  virtual void synchronize() {}
};

}  // namespace tomo::strip
