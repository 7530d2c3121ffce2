// glpet cross-check: a backend against the cpu reference on the same input — relative
// L2 of the forward atlas, of the ratio back-projection and of the sensitivity, and
// the fraction of correspondence-image lines whose secondary detector differs.
#pragma once
#include <string>
#include <vector>

#include "compute/core/metrics.hpp"  // relative_l2, for this unit and its tests
#include "compute/core/registry.hpp"
#include "compute/glpet/projector.hpp"

namespace tomo::glpet {

struct CrosscheckInput {
  SystemModel system;
  ProjectorOptions options;    // of the backend compared with cpu
  std::vector<float> x;        // image to forward-project
  std::vector<float> y;        // "measured" LORs for the ratio back-projection
  std::vector<Vec3> probes;    // sample positions whose correspondence images are compared
};

struct CrosscheckResult {
  std::string backend;
  double atlas_rel_l2 = 0;       // ||ỹ − ỹ_cpu|| / ||ỹ_cpu||
  double back_rel_l2 = 0;        // of Σ A y/ỹ_cpu
  double sens_rel_l2 = 0;        // of Σ A
  double line_diff_fraction = -1;  // −1: the backend exposes no correspondence image
  std::size_t lines_compared = 0;
};

// A deterministic input on `system` (x = activity + 5 % floor; y = a smooth positive
// modulation of the cpu forward projection; probes spread over the grid).
CrosscheckInput make_crosscheck_input(const SystemModel& system, const VolumeF& activity, Projector& cpu);
CrosscheckResult compare(Projector& cpu, Projector& other, const CrosscheckInput& in);

int run_crosscheck(CrosscheckContext& ctx);

}  // namespace tomo::glpet
