// The proximal operator of 3D isotropic total variation on a grid, shared by the iterative
// algorithms (fdk's FISTA-TV, oat's TV-PLS): argmin_x ½‖x − z‖² + weight·TV(x), optionally over
// x ≥ 0, by the fast gradient projection on the dual ([Beck2009] eq. (4.9), 3D constant 1/12).
#pragma once
#include <span>
#include <vector>

#include "compute/core/volume.hpp"

namespace tomo {

struct TvProxOptions {
  // TV weight, in the units of x (TV(x) = Σ_v |∇x_v| with forward differences per voxel step,
  // zero at the last index of each axis; the voxel size does not enter). weight ≤ 0: x = z
  // (projected onto x ≥ 0 when nonnegative).
  double weight = 0.0;
  // Dual iterations (each one pass over the grid for x(p) and one for the ascent); warm starts
  // through `dual` make 10–20 enough inside an outer FISTA loop.
  int iterations = 20;
  // Stops early when no dual component moves by more than this in an iteration (the dual lives
  // in the unit ball, so this is an absolute bound); 0 runs all iterations.
  double tolerance = 0.0;
  bool nonnegative = false;  // project x onto x ≥ 0 (the prox of TV plus the indicator)
};

// x = prox(z); `dual` (3 per voxel, |p_v| ≤ 1) is the warm start and is updated (resized and
// zeroed when empty). Returns the dual iterations run. T is float or double; sums run in double.
template <class T>
int tv_prox(const Grid3& grid, std::span<const T> z, const TvProxOptions& options, std::vector<T>& dual,
            std::span<T> x);

// TV(x) = Σ_v |∇x_v| (isotropic, the forward differences tv_prox uses).
double total_variation(const Grid3& grid, std::span<const double> x);

}  // namespace tomo
