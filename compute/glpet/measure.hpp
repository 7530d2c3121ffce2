// The measured data of a glpet scene: the scene's system and phantoms, and the LOR counts —
// read from the user's file (glpet.data.counts / glpet.data.listmode) or simulated by the
// independent Monte-Carlo model (never the operator: no inverse crime). One place for
// `tomoraster run` and the viewer, so both reconstruct the same counts.
#pragma once
#include <string>

#include "compute/glpet/monte_carlo.hpp"
#include "compute/glpet/config.hpp"

namespace tomo {
class Scene;
}

namespace tomo::glpet {

struct Measurement {
  GlpetScene scene;        // system, phantoms and settings read from [glpet]
  McResult mc;             // mc.counts: the measured LOR counts (histories = 0 when read from a file)
  bool simulated = true;   // false: mc.counts come from scene.data's file
  std::string source;      // "monte-carlo" or the file read
  double simulate_ms = 0;  // wall time of the simulation or of the reading
  McDevice mc_device = McDevice::host;  // where the simulation ran
};

// Reads [glpet] (InputError naming the key at fault) and simulates or reads its data. The
// simulation runs where glpet.mc.device says; its "auto" follows `backend` (cuda: the CUDA
// generator on the devices of `gpus`, the --gpus text; else the host's cores).
Measurement measure(const Scene& scene, const std::string& backend = "cpu", const std::string& gpus = "");

}  // namespace tomo::glpet
