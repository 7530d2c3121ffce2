// Host-callable launchers of the cone-beam projector pair's CUDA kernels (projector_kernels.cu):
// the ray-driven forward projection A and its exact transpose Aᵀ of ray_model.hpp, one thread
// per detector pixel, every ray cut by the shared double ray_samples().
#pragma once
#include <cuda_runtime_api.h>

#include <array>

#include "compute/fdk/ray_model.hpp"

namespace tomo::fdk::cuda_detail {

// Pixel tile of one block (x along the detector columns): 32×4 keeps a warp on one row, so
// neighbouring threads sample neighbouring points of the volume at each step.
inline constexpr int kRayBlockX = 32, kRayBlockY = 4;

struct RayLaunch {
  const ViewRays* rays = nullptr;  // device: one per view of the geometry
  const int* views = nullptr;      // device: k-th projection of the stack is view views[k]
  int count = 0;                   // projections in the stack
  int sx = 0, sy = 0;
  std::array<int, 3> dims{};
  double step_mm = 0;
  dim3 block{kRayBlockX, kRayBlockY, 1};
};

// y[k] = A x for the views of `l`. `volume` samples the volume (3D, border 0, unnormalised):
// hardware = true uses the texture unit's trilinear filter (8-bit weights) on a linear-filtered
// texture, false eight point fetches with fp32 weights on a point-sampled one.
void launch_forward(const RayLaunch& l, cudaTextureObject_t volume, bool hardware, float* y, cudaStream_t stream);

// x += Aᵀ y for the views of `l` (x: dims[0]·dims[1]·dims[2] floats, zeroed by the caller):
// each ray scatters its weighted samples into their 8 voxels with atomic adds.
void launch_back(const RayLaunch& l, const float* y, float* x, cudaStream_t stream);

// B ≈ Aᵀ, voxel-driven (ray_model.hpp, VoxelView) in two passes. First the chunk of the stack is
// multiplied by pixel_weight (V·|det M|·ρ(i, j), kPixelWeightFloats per view in `weights`) on
// its way into the layered detector array (a surface write, so the copy and the weighting are one
// pass over the stack). Then the gather is the FDK kernel's: one thread per (x, y) and
// kVoxelBackZ consecutive z-voxels, up to kVoxelBackViews views per launch with their matrices
// (12 floats, row-major, signed so that t > 0 in front) as a by-value kernel parameter (the
// constant bank), each voxel adding 1/t² times a bilinear sample.
// 16 z-voxels per thread: measured on an H200 (256³ from 360 views of 512², texture-unit
// bilinear) 7.05 ms against 20.2 ms with 8, the FDK kernel's count.
inline constexpr int kVoxelBackViews = 64, kVoxelBackZ = 16;
inline constexpr int kVoxelBlockX = 32, kVoxelBlockY = 4;
inline constexpr int kPixelWeightFloats = 10;  // du, dv, d1 (mm per t), scale
struct VoxelBack {
  float* x = nullptr;  // nx·ny·nz floats, x fastest
  int nx = 0, ny = 0, nz = 0;
  float origin[3] = {0, 0, 0}, voxel[3] = {1, 1, 1};
  dim3 block{kVoxelBlockX, kVoxelBlockY, 1};
  bool all_in_front = false;  // every voxel in front of every source: no t > 0 test
};
// Layer k of `surface` (k < count) = pixel_weight of view views[k] (weights: kPixelWeightFloats
// per view of the geometry) times image k of y (sx·sy floats each).
void launch_weight_layers(const float* y, const int* views, const float* weights, int count, int sx, int sy,
                          cudaSurfaceObject_t surface, cudaStream_t stream);
// x += Σ_{n<count} B_n (layer `first + n` of the layered, weighted detector texture `tex`);
// hardware: the texture unit's bilinear filter (`tex` linear), else four point taps with fp32
// weights.
void launch_back_voxel(const VoxelBack& l, cudaTextureObject_t tex, int first, const float* matrices12, int count,
                       bool hardware, cudaStream_t stream);

}  // namespace tomo::fdk::cuda_detail
