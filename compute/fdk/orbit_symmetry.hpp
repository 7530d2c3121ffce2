// The turn symmetry of a circular orbit that lets one texture fetch serve several views of B
// (cuda/fdk/voxel_back_kernels.hpp). With N equally spaced views over 360° about the grid's
// central z line, view n + N/k sees the grid turned by 360°/k: its matrix is c·P_n·S (S the turn
// of world points about that line, c > 0 a scale), so the voxel S·X projects in view n where X
// projects in view n + N/k, at the same (u, v), and t_{n+N/k}(X) = c·t_n(S·X). The views' weighted
// detectors can then share one texel (a channel each) and one filtered fetch at (u, v) feeds
// both voxels.
//   half turn (k = 2):    S(x, y, z) = (2cx − x, 2cy − y, z), voxel (i, j) ↦ (nx−1−i, ny−1−j);
//                         needs N even and ny even (no voxel is its own image)
//   quarter turn (k = 4): S = ±90° about the line, voxel (i, j) ↦ (n−1−j, i) (sense +1) or
//                         (j, n−1−i) (sense −1); needs N divisible by 4, a square x–y grid
//                         (nx = ny even, equal x and y voxel sizes)
#pragma once
#include <array>
#include <span>
#include <string>
#include <vector>

#include "compute/core/volume.hpp"

namespace tomo::fdk {

struct OrbitSymmetry {
  int order = 1;   // 2: half-turn pairs (n, n + N/2); 4: quarter-turn quads; 1: none found
  int sense = 0;   // quarter turns: +1 for (i, j) ↦ (n−1−j, i), −1 for (i, j) ↦ (j, n−1−i)
  // Per view m = n + r·N/order (n < N/order): c with P_m = c·P_n·S^r (1 for r = 0).
  std::vector<double> scale;
  double max_rel = 0;  // largest ‖P_m − c·P_n·S^r‖ / ‖P_m‖ found
  std::string reason;  // why not, where order is 1
};

// Tests the turn symmetry of `order` (2 or 4) for B's signed matrices `p` (VoxelView::p: 12
// doubles row-major, world mm, one per view in orbit order) on `grid`: every P_m against
// P_n·S^r scaled by the least-squares c, relative Frobenius error at most `tol`, and c > 0.
// The result's order is `order` where it holds, 1 (with the reason) where it does not.
OrbitSymmetry orbit_symmetry(const Grid3& grid, std::span<const std::array<double, 12>> p, int order,
                             double tol = 1e-6);

}  // namespace tomo::fdk
