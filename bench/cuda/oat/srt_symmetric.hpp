// Bench-only H_srt and H_srtᵀ that use the quarter-turn symmetry of the geometry
// (compute/oat/srt_symmetry.hpp): one patch's position and weights serve the four transducers of
// an orbit (cuda/oat/srt_symmetric.cuh): the product's forward and gather by the symmetry and other
// shapes of that gather, timed at the H_srt level (no D, no H_eir) beside the product's general
// kernels on the same data, with data and images compared to theirs and to the scatter's.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "compute/oat/geometry.hpp"
#include "compute/oat/model.hpp"

namespace tomo::oat {

struct SymmetricRow {
  std::string name;
  double ms = 0;
  double rel_l2_vs_product = -1;  // u vs the product's forward, α vs the product's gather
  double rel_l2_vs_scatter = -1;  // α vs the scatter (adjoints)
  double identity = -1;           // |⟨H α, g⟩ − ⟨α, Hᵀ g⟩|/(‖Hα‖‖g‖) with the symmetric forward
  int registers = 0, local_bytes = 0, chunks = 0;
};

struct SymmetricTimes {
  bool ok = false;
  std::string why;  // why the geometry is not symmetric
  int orbits = 0, passes = 0;
  double product_identity = -1;
  std::vector<SymmetricRow> forward, adjoint;  // the product's first, then the symmetric forms
};

// alpha: N voxels, g: Q·(K + 2) shell samples; best of `reps`.
SymmetricTimes time_srt_symmetric(const OatGeometry& g, const ModelOptions& o, std::span<const double> alpha,
                                  std::span<const double> samples, int reps);

}  // namespace tomo::oat
