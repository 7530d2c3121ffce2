// Launcher of the relative difference prior's 3×3×3 stencil kernel (rdp_kernels.cu): each
// neighbour pair evaluated once for both of its voxels, float32, terms from
// compute/pet/rdp_math.hpp; `derivatives` writes the gradient to out and the Hessian diagonal
// to out2 from one pass.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>

namespace tomo::pet::cuda_impl {

enum class RdpTerm : int { value = 0, gradient = 1, hessian = 2, derivatives = 3 };

struct RdpArgs {
  const float* x = nullptr;
  const float* kappa = nullptr;  // one per voxel, or nullptr for 1 everywhere
  float* out = nullptr;          // one per voxel
  float* out2 = nullptr;         // one per voxel: the Hessian diagonal of RdpTerm::derivatives
  int nx = 1, ny = 1, nz = 1;
  float vx = 1, vy = 1, vz = 1;  // voxel sides (neighbour weights)
  float gamma = 2, eps = 1e-9f;
};

void launch_rdp(const RdpArgs& a, RdpTerm term, cudaStream_t stream);

}  // namespace tomo::pet::cuda_impl
