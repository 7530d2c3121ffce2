// The measured data of a glpet scene: the scene's system and phantoms, and the LOR counts
// of the independent Monte-Carlo model (never the operator: no inverse crime). One place
// for `tomoraster run` and the viewer, so both reconstruct the same counts.
#pragma once
#include "compute/glpet/monte_carlo.hpp"
#include "compute/glpet/scene_model.hpp"

namespace tomo {
class Scene;
}

namespace tomo::glpet {

struct Measurement {
  GlpetScene scene;        // system, phantoms and settings read from [glpet]
  McResult mc;             // mc.counts: the measured LOR counts
  double simulate_ms = 0;  // wall time of the simulation
};

// Reads [glpet] (InputError naming the key at fault) and simulates its acquisition.
Measurement measure(const Scene& scene);

}  // namespace tomo::glpet
