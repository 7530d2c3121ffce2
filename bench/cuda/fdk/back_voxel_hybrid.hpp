// The hybrid candidates of B (Variant::soft; bench_fdk --b-variants): the product's texture path
// runs beside a software bilinear path on the SM's load and FMA units, so that part of the samples
// leave the texture units, which bind the product (one filtered fetch per voxel and view at
// 85–88 % of their peak). z-invariant geometry only (u and t fixed along a column), 16 z-voxels a
// thread, every view's matrix in one by-value block. The software sample has fp32 weights (the
// exact B's value) and reads one of:
//   ldg4:  four __ldg loads from the zero-bordered weighted copy (as the exact B)
//   quad:  one 16-byte load of a float4 holding the 2×2 neighbourhood, packed in a pass before
//   quadh: the same four as half floats, one 8-byte load (rounded texels: rel. 1e-5-ish)
//   pair:  two 8-byte loads of (pixel, right neighbour) float2 rows; a voxel whose lower row is
//          the previous voxel's upper row reuses it (v moves about 1.3–1.6 px a z-voxel)
//   tex4:  one point-sampled float4 texel of the packed 2×2 neighbourhood (the texture unit's
//          unfiltered 16-byte rate against its filtered one)
// Which samples: the first `soft_warps` warps of each 8-warp block (a warp-uniform split), and/or
// every `ldg_every`-th z-voxel of the other warps. `patch`: each warp covers an 8×4 patch of
// (x, y) instead of a 32-voxel row, so that a warp's samples fall into fewer detector lines.
// Views per launch: every view, or 64 (Mats::param64, "hyb p64" rows) as the product launches.
#pragma once
#include <cuda_runtime_api.h>

#include <vector>

#include "bench/cuda/fdk/back_voxel_args.hpp"
#include "bench/cuda/fdk/back_voxel_variants.hpp"

namespace tomo::bench::fdk_b {

// The hybrid candidates in the order they are timed (variants() appends them).
std::vector<Variant> hybrid_variants();

// x = B y with hybrid variant v: the texture layers (where a warp samples them), the bordered copy
// and its packing (made on first use), then the gather. False where it does not apply.
bool run_hybrid(const Variant& v, const Inputs& in, const Args& a, cudaStream_t s);

}  // namespace tomo::bench::fdk_b
