// Bench-only forms of oat's H_srtᵀ beside the product's gather (cuda/oat/srt_gather.cuh): the
// scatter it replaced (one warp per shell sample, each patch's eight weights added to α with
// global float atomics, [Wang2013] Alg. k_intHt), the gather with register bounds, with the rings'
// azimuths cut by the ring itself, and probes: without its adds (the enumeration and patch
// arithmetic alone) and without visiting patches (the bounds alone).
// Compiled as srt_kernels.cu is, so the patches and weights are the same.
#pragma once
#include <cuda_runtime_api.h>

#include <string_view>

#include "cuda/oat/srt_kernels.hpp"

namespace tomo::oat::cuda_detail {

enum class AdjointVariant {
  gather,              // the product's (kGatherTile in kGatherLayout, fixed-point sums, azimuth table,
                       // interleaved deal, its plan)
  gather_occ3,         // the product's with registers bounded for 3 blocks per multiprocessor
  gather_unbounded,    // … with unbounded registers (90: 2 blocks; the product's before)
  gather_circle,       // the product's with the rings' azimuths cut by the ring itself (bench/cuda/oat/srt_ring_cuts.hpp CircleCut)
  gather_circle_occ3,  // … and registers bounded for 3 blocks per multiprocessor
  gather_no_adds,      // the product's (table, interleaved) without its shared-memory adds (a probe)
  gather_circle_no_adds,  // the circle cut's without its adds (a probe)
  gather_bounds_only,  // the product's bounds of shells, rings and azimuths, no patch visited (a probe)
  gather_circle_bounds_only,  // the circle cut's bounds alone (a probe)
  gather_refined,      // the product's with the line cut refined by the arc left (srt_ring_cuts.hpp RefinedCut)
  gather_refined_interleaved,  // … and the patches dealt interleaved
  gather_refined_no_adds,      // the refined cut's without its adds (a probe)
  gather_refined_bounds_only,  // the refined cut's bounds alone (a probe)
  gather_table,        // the product's with the azimuths' sines and cosines from a table (TablePoints), blocked deal
  gather_before,       // the product's before: positions by sincosf, blocked deal (gather_before.cuh; the forms
                       // below without a table or deal named build on it)
  gather_interleaved,  // the product's with the patches dealt interleaved (srt_gather.cuh InterleavedDeal)
  gather_paired,       // the product's with two patches a lane and step (srt_adjoint_variants.cu PairedDeal)
  gather_table_paired,  // … with the azimuth table
  gather_half_z,       // tiles of 16×16×8 voxels (half the product's along z), 4 blocks per SM
  gather_half_z_interleaved,  // … with the patches dealt interleaved
  gather_half_z_5,     // 16×16×8 tiles, registers bounded for 5 blocks per SM
  scatter,
  scatter_merged,      // the forward's loop order transposed, a lane's patches summed across shells in registers
                       // while their base voxel stays (srt_merged_scatter.cuh), scalar global atomics
  scatter_merged_vector,  // … its eight sums added as float4 atomics where the row allows
  scatter_window,      // … a lane's sums in an 8×3×3 window of shared memory, flushed as float4 atomics
  scatter_window_table,     // … with the gather's azimuth table for the patch positions
  scatter_window_no_adds,   // the window form without its global adds (a probe: patches and window alone)
  scatter_window_coop,      // the window form (azimuth table) flushed by the whole warp (srt_window_coop.cuh)
  gather_fixed64,      // the product's with each fixed-point term one 64-bit shared add (the same sums, bit for bit)
};
inline constexpr AdjointVariant kAdjointVariants[] = {
    AdjointVariant::gather,          AdjointVariant::gather_occ3,           AdjointVariant::gather_unbounded,
    AdjointVariant::gather_circle,   AdjointVariant::gather_circle_occ3,
    AdjointVariant::gather_no_adds,  AdjointVariant::gather_circle_no_adds, AdjointVariant::gather_bounds_only,
    AdjointVariant::gather_circle_bounds_only, AdjointVariant::gather_refined, AdjointVariant::gather_refined_interleaved,
    AdjointVariant::gather_refined_no_adds, AdjointVariant::gather_refined_bounds_only, AdjointVariant::gather_table,
    AdjointVariant::gather_before, AdjointVariant::gather_interleaved, AdjointVariant::gather_paired,
    AdjointVariant::gather_table_paired, AdjointVariant::gather_half_z,
    AdjointVariant::gather_half_z_interleaved, AdjointVariant::gather_half_z_5, AdjointVariant::scatter,
    AdjointVariant::scatter_merged, AdjointVariant::scatter_merged_vector,
    AdjointVariant::scatter_window, AdjointVariant::scatter_window_table, AdjointVariant::scatter_window_no_adds,
    AdjointVariant::scatter_window_coop, AdjointVariant::gather_fixed64};
std::string_view variant_name(AdjointVariant v);
// The tile of a gather variant (the product's for gather and gather_no_adds; none for scatter).
void variant_tile(AdjointVariant v, int tile[3]);
// The blocks per multiprocessor a variant's plan aims for (plan_gather's target_blocks per SM).
int variant_blocks_per_sm(AdjointVariant v);
// A gather variant's registers per thread and local (spilled) bytes per thread; 0 for the probes
// and the scatter.
struct KernelResources {
  int registers = 0, local_bytes = 0;
};
KernelResources variant_resources(AdjointVariant v);
// α = H_srtᵀ g by variant v (scatter: α zeroed first); gp planned with variant_tile's tile.
void launch_adjoint_variant(AdjointVariant v, const SrtParams& p, const GatherParams& gp, const float* g, float* alpha,
                            float* partial, cudaStream_t stream);

}  // namespace tomo::oat::cuda_detail
