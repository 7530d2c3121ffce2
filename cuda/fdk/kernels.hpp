// Host-callable launchers of the fdk CUDA kernels (kernels.cu): RabbitCT back-projection of a
// batch of projections held in a layered texture, with matrices in constant memory.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>

namespace tomo::fdk::cuda_detail {

inline constexpr int kMaxProjectionsPerLaunch = 64;  // matrices per launch (kernel-parameter space)
inline constexpr int kVoxelsPerThread = 8;           // z-voxels per thread (shared x/y terms)
inline constexpr int kBlockX = 32, kBlockY = 4;

// A z-slab of the volume on the device: slices [k0, k0 + nz) of the full grid.
struct SlabView {
  float* volume = nullptr;  // nx·ny·nz floats, x fastest
  int nx = 0, ny = 0, nz = 0;
  int k0 = 0;
  float origin[3] = {0, 0, 0};  // world position of voxel (0,0,0) of the FULL grid (mm)
  float voxel[3] = {1, 1, 1};
};

// slab += Σ_{n<count} 1/w² · bilinear(layer n, u, v) with `count` host matrices (12 floats each,
// RabbitCT column-major). They travel as a by-value kernel parameter (3 KB), i.e. in the constant
// bank, so no copy has to be ordered against running launches. exact = false: `tex` filters
// linearly in hardware; exact = true: `tex` is point-sampled and the bilinear weights are fp32.
void launch_backproject(const SlabView& slab, cudaTextureObject_t tex, const float* matrices, int count, bool exact,
                        cudaStream_t stream);

}  // namespace tomo::fdk::cuda_detail
