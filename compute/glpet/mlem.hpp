// ML-EM (seed 004 eq. (3)) written once against the glpet Projector interface: the
// sensitivity is computed once and kept; x, y, ỹ live on the backend between iterations.
#pragma once
#include <functional>
#include <span>
#include <vector>

#include "compute/glpet/projector.hpp"

namespace tomo {
class RunReport;
}

namespace tomo::glpet {

struct MlemOptions {
  int iterations = 10;
  // Called after every iteration with the iteration number (1-based) and the image on
  // the device (download only if you need it: that is the only host copy per iteration).
  // Returns false to stop after this iteration (the viewer's stop button), true to go on.
  std::function<bool(int, const BackendBuffer&)> on_iteration;
  RunReport* report = nullptr;  // timings "sensitivity", "forward", "back_ratio", "update"
};

struct MlemResult {
  std::vector<float> x;            // final image
  std::vector<float> sensitivity;  // Σ_l A_lv
  std::vector<float> estimate;     // ỹ = A x of the last image that was back-projected
  int iterations = 0;              // iterations run: fewer than asked when on_iteration stopped
};

// x0 empty: start from x_v = 1 where the sensitivity is > 0.
MlemResult run_mlem(Projector& op, std::span<const float> y, std::span<const float> x0, const MlemOptions& opt);

}  // namespace tomo::glpet
