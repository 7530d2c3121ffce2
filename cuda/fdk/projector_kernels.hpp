// Host-callable launchers of the cone-beam projector pair's CUDA kernels (projector_kernels.cu):
// the ray-driven forward projection A and its exact transpose Aᵀ of ray_model.hpp, one thread
// per detector pixel, every ray cut by the shared double ray_samples(). B is in
// voxel_back_kernels.hpp.
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

}  // namespace tomo::fdk::cuda_detail
