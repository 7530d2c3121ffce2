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

// An order of the lines by locality: by dominant axis, then along a Z-order (Morton) curve over
// the four voxel coordinates where the line crosses the first and the last plane of that axis, so
// that a warp's 32 lines lie close together along their whole length and its loads and atomics
// fall on few cache lines. Lines that miss the grid go last.
std::vector<std::uint32_t> locality_order(std::span<const DeviceWalk> walks, const LineGrid& grid);

struct JosephArgs {
  const DeviceWalk* walks = nullptr;
  const std::uint32_t* order = nullptr;  // walk t is line order[t]; nullptr: walk t is line t
  std::size_t lines = 0;
  int nx = 1, ny = 1, nz = 1;
};

// The quad layout of an image for the lines of dominant axis d: on each plane k along d, the 2×2
// block of voxels (iu, iv), (iu+1, iv), (iu, iv+1), (iu+1, iv+1) along the plane's axes a < b as
// one float4 (0 outside the grid), for iu ∈ [−1, na−1], iv ∈ [−1, nb−1]: n_d (na+1)(nb+1) float4.
// A plane sample is then one 16-byte load, and the back projection one float4 atomic (sm_90).
using QuadPlanes = float4* const*;  // [3]: per dominant axis, nullptr where no line has it
std::size_t quad_count(const LineGrid& grid, int axis);
void launch_make_quads(const float* image, int axis, const JosephArgs& a, float4* quads, cudaStream_t stream);
// lines[order[t]] = Σ taps of walk t from the quads of its axis (made from the image first).
void launch_joseph_forward_quads(const JosephArgs& a, QuadPlanes quads, float* lines, cudaStream_t stream);
// quads of each line's axis += its taps · lines[order[t]] (the caller zeroes the quads first).
void launch_joseph_back_quads(const JosephArgs& a, const float* lines, QuadPlanes quads, cudaStream_t stream);
// image = Σ over the axes' quads of each voxel's four shares (overwritten).
void launch_quads_to_image(const JosephArgs& a, QuadPlanes quads, float* image, cudaStream_t stream);

// lines[order[t]] = Σ taps of walk t over image.
void launch_joseph_forward(const JosephArgs& a, const float* image, float* lines, cudaStream_t stream);
// image += Σ taps · lines[order[t]] (the caller zeroes image first).
void launch_joseph_back(const JosephArgs& a, const float* lines, float* image, cudaStream_t stream);

}  // namespace tomo::pet::cuda_impl
