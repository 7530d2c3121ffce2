// Joseph's line projector on the GPU (joseph_kernels.cu): the walks of compute/pet/joseph.hpp made
// in double on the host and kept in float32, one thread per line in the lines' given order. The
// forward gathers four bilinear taps per plane from the image; the back projection adds each
// plane sample's four shares with one float4 atomic into the quad layout of the line's dominant
// axis, which is then summed into the image. In TOF mode each line also carries its TOF walk
// (compute/pet/joseph.hpp: window, distance from the bin's centre, renormalised weight), made in
// double on the host; the kernels evaluate the bin-integrated Gaussian per plane in float32.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
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

// One line's TOF walk in float32 (32 bytes): planes first … last, the distance x (mm) of plane
// `first` from the bin's centre and its change per plane dx, the weight that replaces the step,
// and 1/(√2 σ).
struct alignas(16) DeviceTof {
  float x, dx, scale, r;
  int first, last;
  int pad[2];
};

// The TOF walks of `endpoints` on `grid` (double math, float result).
std::vector<DeviceTof> device_tof_walks(const LineGrid& grid, std::span<const double> endpoints, const LineTof& tof);

struct JosephArgs {
  const DeviceWalk* walks = nullptr;
  std::size_t lines = 0;
  int nx = 1, ny = 1, nz = 1;
  const DeviceTof* tof = nullptr;  // TOF mode when set
  float half_width = 0;            // Δ/2 (mm)
};

// lines[t] = Σ taps of walk t over image (its TOF taps in TOF mode).
void launch_joseph_forward(const JosephArgs& a, const float* image, float* lines, cudaStream_t stream);

// The quad layout of the back projection for the lines of dominant axis d: on each plane k along
// d, the shares of the 2×2 block of voxels (iu, iv), (iu+1, iv), (iu, iv+1), (iu+1, iv+1) along
// the plane's axes a < b as one float4, for iu ∈ [−1, na−1], iv ∈ [−1, nb−1]: n_d (na+1)(nb+1)
// float4. A plane sample is one float4 atomic there (sm_90; four float atomics before).
using QuadPlanes = float4* const*;  // [3]: per dominant axis, nullptr where no line has it
std::size_t quad_count(const LineGrid& grid, int axis);
// quads of each line's axis += its taps · lines[t] (the caller zeroes the quads first).
void launch_joseph_back_quads(const JosephArgs& a, const float* lines, QuadPlanes quads, cudaStream_t stream);
// image = Σ over the axes' quads of each voxel's four shares (overwritten).
void launch_quads_to_image(const JosephArgs& a, QuadPlanes quads, float* image, cudaStream_t stream);

}  // namespace tomo::pet::cuda_impl
