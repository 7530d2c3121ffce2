// The [musr] section of a scene, read and validated in one place (keys documented in
// scenes/musr_default.toml and docs/musr.md).
#pragma once
#include <filesystem>

#include "compute/musr/fit_problem.hpp"
#include "compute/musr/simulator.hpp"

namespace tomo {
class Scene;
}

namespace tomo::musr {

struct MusrConfig {
  std::filesystem::path msr;  // fit this msr file; empty: simulate eq. (5) into the output folder
  Eq5Config eq5;              // the simulation (read only when msr is empty)
  bool max_likelihood = false;  // the simulated msr's COMMANDS use MAX_LIKELIHOOD (else χ²)
  EvaluatorOptions options;     // threads (cpu), single_precision (GPU backends)
  bool plots = true;            // run<N>.png per RUN after the fit
  bool auto_t0 = false;         // t0 at each histogram's prompt peak, data from t0 + offset (musrt0 -g)
  int auto_t0_offset = -1;      // bins after t0 where the data start; −1: ⌊10 ns/Δt⌋

  bool simulate() const { return msr.empty(); }
  // The simulation's keys are read only without an msr file, and declared optional with one.
  static MusrConfig from_scene(const Scene& scene);
};

}  // namespace tomo::musr
