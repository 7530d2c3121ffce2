// Host-callable launchers of the cone-beam projector pair's CUDA kernels (projector_kernels.cu):
// the ray-driven forward projection A (one thread per detector pixel) and its exact transpose Aᵀ
// (one block per box of the volume) of ray_model.hpp, every ray cut by the shared double
// ray_samples(). B is in voxel_back_kernels.hpp.
#pragma once
#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>

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

// x += Aᵀ y for the views of `l` (x: dims[0]·dims[1]·dims[2] floats), tiled: one block per box of
// the volume accumulates, in shared memory, the samples of every ray that can reach the box (its
// pixels found by projecting the box's corners), each ray cut and walked exactly as A walks it,
// and adds the box to x once per pass of views. Every voxel is written by the one block that owns
// it, so a cell's corner sums reach shared memory (per-block atomics) instead of global atomics
// (the scatter it replaced: bench/cuda/fdk/projector_scatter.hpp); the image equals the
// scatter's up to the order of the float additions.
inline constexpr int kTableMaxViews = 64;  // views per pass at most
inline constexpr int kRayTableFloats = 8;  // per ray: start[3], step[3], y·weight, count
// Floats of device scratch a pass of `views_per_pass` views needs (the rays' table and the
// pixel box of every block and view), and the views per pass that `scratch_bytes` allows
// (1 … kTableMaxViews).
std::size_t tiled_scratch_floats(const std::array<int, 3>& dims, int sx, int sy, int views_per_pass);
int tiled_views_per_pass(const std::array<int, 3>& dims, int sx, int sy, std::size_t scratch_bytes);
// `scratch`: tiled_scratch_floats(...) floats of device memory (16-byte aligned).
void launch_back_tiled(const RayLaunch& l, const float* y, float* x, float* scratch, int views_per_pass,
                       cudaStream_t stream);

}  // namespace tomo::fdk::cuda_detail
