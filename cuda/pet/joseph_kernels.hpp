// Joseph's line projector on the GPU (joseph_kernels.cu): the walks of compute/pet/joseph.hpp made
// in double on the host and kept in float32, one thread per line for the forward (a gather of
// bilinear taps) and for the back projection (float atomics into the image).
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "compute/pet/line_projector.hpp"

namespace tomo::pet::cuda_impl {

// One line's walk in float32 (32 bytes, two vector loads): see joseph::Walk.
struct alignas(16) DeviceWalk {
  float ua, ub, da, db;
  float weight;
  int axis, first, last;
};

// The walks of `endpoints` (6 per line) on `grid`, in line order (double math, float result).
std::vector<DeviceWalk> device_walks(const LineGrid& grid, std::span<const double> endpoints);

// An order of the lines for the back projection's atomics: by dominant axis, then by direction
// (lines whose in-plane slopes differ by less than one voxel over the grid together), then by
// the crossing point at the grid's middle plane (rows along b, then along a), so that a warp's
// lines run side by side and add into neighbouring, distinct voxels on every plane.
std::vector<std::uint32_t> back_order(std::span<const DeviceWalk> walks, const LineGrid& grid);

struct JosephArgs {
  const DeviceWalk* walks = nullptr;
  const std::uint32_t* order = nullptr;  // walk t is line order[t]; nullptr: walk t is line t
  std::size_t lines = 0;
  int nx = 1, ny = 1, nz = 1;
};

// lines[order[t]] = Σ taps of walk t over image.
void launch_joseph_forward(const JosephArgs& a, const float* image, float* lines, cudaStream_t stream);
// image += Σ taps · lines[order[t]] (the caller zeroes image first).
void launch_joseph_back(const JosephArgs& a, const float* lines, float* image, cudaStream_t stream);

}  // namespace tomo::pet::cuda_impl
