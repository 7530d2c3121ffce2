// Bench-only forms of oat's H_srtᵀ beside the product's gather (cuda/oat/srt_gather.cuh): the
// scatter it replaced (one warp per shell sample, each patch's eight weights added to α with
// global float atomics, [Wang2013] Alg. k_intHt), the gather with other tile shapes, shared-memory layouts
// or register bounds or with patch positions from the hardware sine, and the gather without its shared-memory adds (the enumeration and patch arithmetic alone: the ceiling
// the atomics leave). Compiled as srt_kernels.cu is, so the patches and weights are the same.
#pragma once
#include <cuda_runtime_api.h>

#include <string_view>

#include "cuda/oat/srt_kernels.hpp"

namespace tomo::oat::cuda_detail {

enum class AdjointVariant {
  gather,           // the product's (kGatherTile in kGatherLayout, exact positions, fixed-point sums)
  gather_float,     // the product's with float adds (compare-and-swap loops in shared memory); the forms
                    // below add floats too
  gather_dense,     // float adds, the tile in the dense layout (the bank depends on x and y's parity)
  gather_occ3,      // the product's with registers bounded for 3 blocks per multiprocessor
  gather_occ4,      // … for 4 (64 registers)
  gather_split,     // the product's with twice the blocks per multiprocessor planned (more transducer chunks)
  gather_32x16x16,  // longer tiles, spread layout (fewer ring bounds per patch)
  gather_32x16x16_occ3,
  gather_32x32x16,
  gather_fast,      // the product's tile, positions by the hardware sine (PatchTrig::fast)
  gather_no_adds,   // the product's without its shared-memory adds (a probe)
  gather_bounds_only,  // the product's bounds of shells, rings and azimuths, no patch visited (a probe)
  scatter,
};
// The riskiest form (the most shared memory) last, so that a failure there
// leaves the others' lines.
inline constexpr AdjointVariant kAdjointVariants[] = {
    AdjointVariant::gather,          AdjointVariant::gather_float,       AdjointVariant::gather_dense,
    AdjointVariant::gather_occ3,     AdjointVariant::gather_occ4,        AdjointVariant::gather_split,
    AdjointVariant::gather_32x16x16, AdjointVariant::gather_32x16x16_occ3, AdjointVariant::gather_fast,
    AdjointVariant::gather_no_adds,  AdjointVariant::gather_bounds_only, AdjointVariant::scatter,
    AdjointVariant::gather_32x32x16};
std::string_view variant_name(AdjointVariant v);
// The tile of a gather variant (the product's for gather and gather_no_adds; none for scatter).
void variant_tile(AdjointVariant v, int tile[3]);
// The blocks per multiprocessor a variant's plan aims for (plan_gather's target_blocks per SM).
int variant_blocks_per_sm(AdjointVariant v);
// α = H_srtᵀ g by variant v (scatter: α zeroed first); gp planned with variant_tile's tile.
void launch_adjoint_variant(AdjointVariant v, const SrtParams& p, const GatherParams& gp, const float* g, float* alpha,
                            float* partial, cudaStream_t stream);

}  // namespace tomo::oat::cuda_detail
