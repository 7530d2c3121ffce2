// bench_oat's rows of H_srt and H_srtᵀ by the quarter-turn symmetry of the geometry
// (compute/oat/srt_symmetry.hpp: one patch's position and weights serve the four transducers of an
// orbit): the product's symmetric forward (srt_kernels.hpp launch_srt_symmetric) and the bench-only
// symmetric gathers (srt_symmetric_gather.cuh) beside the general kernels on the same data, timed
// at the H_srt level (no D, no H_eir), with data and images compared to the general kernels' and
// to the scatter's; the product transpose's float4 atomics counted, and as many timed from kernels
// that do nothing else (its ceiling by address pattern).
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
  // The product's H_srtᵀ: its float4 atomics, and as many issued by kernels that do nothing else
  // (srt_sym_scatter.cuh red_ceiling_kernel), by address pattern.
  unsigned long long adds = 0;
  double product_adjoint_ms = 0, no_adds_ms = 0;  // the product's H_srtᵀ, its probe without adds
  std::vector<SymmetricRow> ceilings;
  std::size_t l2_bytes = 0, c4_bytes = 0;
};

// alpha: N voxels, g: Q·(K + 2) shell samples; best of `reps`.
SymmetricTimes time_srt_symmetric(const OatGeometry& g, const ModelOptions& o, std::span<const double> alpha,
                                  std::span<const double> samples, int reps);

}  // namespace tomo::oat
