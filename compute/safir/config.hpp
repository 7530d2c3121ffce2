// The [safir] section of a scene, read and validated in one place (keys documented in
// scenes/safir_default.toml and docs/safir.md).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "compute/pet/corrections.hpp"
#include "compute/pet/scene_options.hpp"
#include "compute/safir/mlem.hpp"
#include "compute/safir/phantom.hpp"
#include "compute/safir/sensitivity.hpp"
#include "compute/safir/simulator.hpp"

namespace tomo {
class Scene;
}

namespace tomo::safir {

struct AnalysisConfig {
  double r_in_mm = 1.0;   // inner sphere radius (seed: 2 mm diameter)
  double r_out_mm = 2.0;  // outer sphere radius (seed: 4 mm diameter)
  double threshold = 5.0;  // spots: E/ΔE above this
  std::vector<std::array<double, 3>> positions;  // E ± ΔE also reported here (mm)
};

// safir.write_events: the simulated events also written as a file, in this format.
enum class EventsFile { none, clm, castor };

// safir.simulator: where the events are simulated ("auto": the cuda generator when the run's
// backend is cuda and a CUDA device is there, else the host).
enum class SimulatorChoice { automatic, host, cuda };

struct SafirConfig {
  Scanner scanner;
  ImageBox box;
  Phantom phantom;
  SimulationOptions simulation;
  SimulatorChoice simulator = SimulatorChoice::automatic;  // safir.simulator
  MlemOptions mlem;
  pet::PetSceneOptions pet;           // algorithm, subsets, prior, initial image (docs/pet.md)
  std::vector<int> save_iterations;   // images also written after these iterations
  pet::CorrectionOptions corrections;  // attenuation map, crystal efficiencies, randoms, scatter (docs/pet.md)
  ProjectorOptions options;
  SensitivityMode sensitivity = SensitivityMode::symmetric;
  AnalysisConfig analysis;
  bool fov_mask = true;         // ML-EM holds voxels outside field_of_view(scanner) at 0
  double frame_s = 0.0;         // > 0: one image per frame of this length (4D NIfTI)
  std::string events_file;      // .clm.safir or .cdh instead of simulating
  std::string crystal_map;      // checked against the scanner when given
  EventsFile write_events = EventsFile::none;  // "", "clm" (.clm.safir) or "castor" (.cdh/.cdf)
  std::uint64_t crosscheck_events = 200000;

  static SafirConfig from_scene(const Scene& scene);
};

}  // namespace tomo::safir
