// Host-callable launchers of the projector pair's voxel-driven B ≈ Aᵀ (ray_model.hpp, VoxelView)
// on CUDA, in two passes. First the chunk of the stack is multiplied by pixel_weight
// (V·|det M|·ρ(i, j), kPixelWeightFloats per view) on its way into the layered detector array (a
// surface write, so the copy and the weighting are one pass over the stack) and, where the gather
// samples by loads, into a linear copy with a one-pixel zero border. Then the gather: one thread
// per (x, y) and kVoxelBackZ consecutive z-voxels, up to kVoxelBackViews views per launch with
// their matrices (12 floats, row-major, signed so that t > 0 in front) as a by-value kernel
// parameter (the constant bank), each voxel adding 1/t² times a bilinear sample.
#pragma once
#include <cuda_runtime_api.h>

namespace tomo::fdk::cuda_detail {

inline constexpr int kVoxelBackViews = 64, kVoxelBackZ = 16;
inline constexpr int kVoxelBlockX = 32, kVoxelBlockY = 4;
inline constexpr int kPixelWeightFloats = 10;  // du, dv, d1 (mm per t), scale

// How the gather samples the weighted detector (bench_fdk --b-variants, docs/perf/fdk.md):
//   hardware: the texture unit's bilinear filter (8-bit weights), one fetch per voxel and view
//   loads:    four __ldg loads from the zero-bordered copy with fp32 weights (exact); 2.2× faster
//             than four point-sampled texture fetches, which it replaced
enum class Sampling { hardware, loads };

struct VoxelBack {
  float* x = nullptr;  // nx·ny·nz floats, x fastest
  int nx = 0, ny = 0, nz = 0;
  float origin[3] = {0, 0, 0}, voxel[3] = {1, 1, 1};
  dim3 block{kVoxelBlockX, kVoxelBlockY, 1};
  bool all_in_front = false;  // every voxel in front of every source: no t > 0 test
  bool z_invariant = false;   // p[2] = p[10] = 0 in every view: u and t do not change along z
  const float* padded = nullptr;  // (sx + 2)·(sy + 2) per layer, zero border (loads)
  int sx = 0, sy = 0;
};

// Image k (k < count) of the weighted detector = pixel_weight of view views[k] (weights:
// kPixelWeightFloats per view of the geometry) times image k of y (sx·sy floats each): into layer
// k of `surface` for hardware, into the interior of image k of `padded` for loads.
void launch_weight_layers(const float* y, const int* views, const float* weights, int count, int sx, int sy,
                          Sampling sampling, cudaSurfaceObject_t surface, float* padded, cudaStream_t stream);
// x += Σ_{n<count} B_n (image `first + n` of the weighted detector: `tex`, linear-filtered, for
// hardware; l.padded for loads).
void launch_back_voxel(const VoxelBack& l, cudaTextureObject_t tex, int first, const float* matrices12, int count,
                       Sampling sampling, cudaStream_t stream);

// The hardware B by the orbit's turn symmetry (compute/fdk/orbit_symmetry.hpp, device side in
// voxel_back_turn.cuh): where view n + N/k sees the grid turned by 360°/k about its central z
// line where view n sees it, views n + r·N/k (r < k) are weighted into the k half-float channels
// of layer n of `surface` (k = 4: RGBA16F, N/4 layers, the quarter turn of `sense`; k = 2: RG16F,
// N/2 layers, the half turn; inv_c2: per view 1/c² of its scale), and one thread per orbit of k
// columns adds them with one filtered fetch per voxel and k views: N/k fetches a voxel instead
// of N (bench_fdk --b-variants, docs/perf/fdk.md). Every voxel must lie in front of every source
// (no t > 0 test); x is added to. m12: views 0 .. N/k − 1, 12 floats each.
// z-voxels a thread (16 ran slower: registers) and the fastest block shapes measured: 8×16 for
// quarter turns, 32×4 for half turns (8×16 there: 6 % slower).
inline constexpr int kTurnZ = 8;
inline constexpr unsigned kQuarterBlock[2] = {8, 16}, kHalfBlock[2] = {32, 4};
// Half floats keep full precision from 2^-14 to 65504: the packing scales the call's texels by
// one power of two from max |y| (a pass over y into *max_bits, one device word of scratch) and
// weight_max (turn_weight_max), and the gather undoes it.
void launch_weight_turn(const float* y, const float* weights, const float* inv_c2, int views, int k, int sx, int sy,
                        unsigned* max_bits, float weight_max, cudaSurfaceObject_t surface, cudaStream_t stream);
void launch_back_voxel_turn(const VoxelBack& l, cudaTextureObject_t tex, const float* m12, int views, int k, int sense,
                            const unsigned* max_bits, float weight_max, cudaStream_t stream);
// The largest pixel weight of any view times its 1/c² (host weights, kPixelWeightFloats a view;
// ρ is the norm of an affine map of the pixel, so largest at a detector corner).
float turn_weight_max(const float* weights, const float* inv_c2, int views, int sx, int sy);

}  // namespace tomo::fdk::cuda_detail
