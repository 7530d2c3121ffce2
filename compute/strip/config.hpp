// The [strip] section of a scene, read and validated in one place (keys documented in
// scenes/strip_default.toml and docs/strip.md).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "compute/core/enum_name.hpp"
#include "compute/pet/corrections.hpp"
#include "compute/pet/scene_options.hpp"
#include "compute/strip/geometry.hpp"
#include "compute/strip/phantom.hpp"
#include "compute/strip/projector.hpp"

namespace tomo {
class Scene;
}

namespace tomo::strip {

// Where simulate_phantom's events are made: "auto" takes the cuda generator when the
// reconstruction runs on the cuda backend (and no attenuation map or normalisation is simulated).
enum class SimulatorChoice { automatic, host, cuda };
inline constexpr std::array<EnumName<SimulatorChoice>, 3> kSimulatorNames{
    {{"auto", SimulatorChoice::automatic}, {"host", SimulatorChoice::host}, {"cuda", SimulatorChoice::cuda}}};

struct StripConfig {
  StripGeometry geometry;
  Resolution resolution;
  ProjectorOptions options;
  StripPhantom phantom;
  std::uint64_t events = 1000000;     // simulated events (ignored when events_file is set)
  std::uint64_t seed = 1;
  SimulatorChoice simulator = SimulatorChoice::automatic;  // strip.simulator
  // Simulated randoms and scatter: these shares of the events (background.hpp).
  double randoms_fraction = 0.0, scatter_fraction = 0.0;
  int iterations = 20;
  std::vector<int> save_iterations;   // ρ' images written after these iterations
  pet::PetSceneOptions pet;           // algorithm, subsets, prior, initial ρ' image (docs/pet.md)
  pet::CorrectionOptions corrections;  // strip.attenuation_map (the object's μ: simulated and corrected)
  std::string events_file;            // read events from here instead of simulating
  bool write_events = false;          // write the simulated events as events.lm
  int crosscheck_events = 0;          // crosscheck: first N events only (0 = all)
  double sensitivity_threshold = 0.01;  // ρ = 0 where s < this × max s (the field of view)
  bool fov_mask = true;                 // ρ = 0 outside the strips' field of view (field_of_view)

  static StripConfig from_scene(const Scene& scene);
};

}  // namespace tomo::strip
