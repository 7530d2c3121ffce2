// Device helpers of the oat FBP kernels that stage per-block time windows in shared memory
// (fbp_pinned_kernels.cu, fbp_deferred_kernels.cu): a thread's voxel column and the first table
// entry a block's box can need from a transducer (fbp_kernels.hpp).
#pragma once
#include <cuda_runtime.h>

#include "cuda/oat/fbp_kernels.hpp"
#include "cuda/oat/fbp_math.cuh"

namespace tomo::oat::cuda_detail {

// Threads of a block covering one kFbpBoxX × kFbpBoxY × kFbpBoxZ box with kV voxels per thread.
template <int kV>
struct SharedShape {
  static constexpr int kZGroups = kFbpBoxZ / kV;                   // threads along z
  static constexpr int kThreads = kFbpBoxX * kFbpBoxY * kZGroups;  // 128 (kV 8)
  static_assert(kFbpBoxX == 8 && kFbpBoxY == 8 && kZGroups * kV == kFbpBoxZ, "the lane map below assumes 8 x 8");
};

// This thread's voxel column (i, j, kb … kb + kV − 1). A warp covers 8 × 4 voxels in (x, y) as two
// 4 × 4 squares, one per half-warp: a 64-bit shared load conflicts only between threads of one
// half-warp, and a compact square keeps their window indices within a few consecutive entries.
// Warps pair up along y, then stack along z.
// (bx, by, bz): the block's box (the deferred fix-up pass names another kernel's blocks so).
template <int kV>
__device__ __forceinline__ int3 shared_column(int tid, int bx, int by, int bz) {
  const int lane = tid & 31, warp = tid >> 5;
  const int x = (lane & 3) | ((lane >> 4) << 2);
  const int y = ((lane >> 2) & 3) | ((warp & 1) << 2);
  return make_int3(bx * kFbpBoxX + x, by * kFbpBoxY + y, bz * kFbpBoxZ + (warp >> 1) * kV);
}
template <int kV>
__device__ __forceinline__ int3 shared_column(int tid) {
  return shared_column<kV>(tid, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y),
                           static_cast<int>(blockIdx.z));
}

// The first table entry this block's box can need from a transducer at s: the nearest point of
// the box of voxel centres gives the smallest k̃, less two entries of margin (fp32 k̃ and its
// double refinement differ from the exact one by far less than one entry).
// box_dist2: the squared distance (samples²) from s to that nearest point.
__device__ __forceinline__ float box_dist2(const FbpParams& p, float4 s) {
  const float v = p.voxel_samples;
  const float x0 = blockIdx.x * kFbpBoxX * v, y0 = blockIdx.y * kFbpBoxY * v, z0 = blockIdx.z * kFbpBoxZ * v;
  const float nx = fminf(fmaxf(s.x, x0), x0 + (kFbpBoxX - 1) * v) - s.x;
  const float ny = fminf(fmaxf(s.y, y0), y0 + (kFbpBoxY - 1) * v) - s.y;
  const float nz = fminf(fmaxf(s.z, z0), z0 + (kFbpBoxZ - 1) * v) - s.z;
  return nx * nx + ny * ny + nz * nz;
}
__device__ __forceinline__ int window_start(const FbpParams& p, float4 s, float dist2) {
  const float kt = sqrtf(dist2) - p.tau0h + 0.5f;
  return static_cast<int>(fminf(fmaxf(floorf(kt) - 2.0f, -1e8f), 1e8f));  // finite even for a NaN kt
}

}  // namespace tomo::oat::cuda_detail
