// Launchers of the glpet CUDA twin (docs/glpet.md §2 contract; kernels.cu and
// cache_kernels.cu): one block per voxel,
// threads over primary-detector macropixels; line geometry in double (same secondary
// detectors as the cpu reference), ray marching and sums in float.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>

namespace tomo::glpet::cuda_impl {

struct ModuleDesc {
  double centre[3], normal[3], axis_a[3], axis_t[3], corner[3];
  double pitch_a, pitch_t;
  int n_a, n_t;
};

struct PairDesc {
  ModuleDesc m[2];
  std::size_t lor_offset;  // of this pair's atlas in the concatenated LOR vector
};

struct VolumeDesc {
  const float* sigma = nullptr;  // σ_t, x fastest
  int n[3] = {0, 0, 0};
  double origin[3] = {0, 0, 0}, voxel[3] = {1, 1, 1}, inv_voxel[3] = {1, 1, 1};
  bool empty = true;
};

struct SystemDesc {
  VolumeDesc vol;                // also the voxel grid of x
  const double* offsets = nullptr;  // N × 3 sample offsets (voxel units), device memory
  int N = 1, R = 1, K = 1;
  // The voxels the passes visit: [first, first + count) (Projector::restrict_voxels); count 0:
  // the whole grid. The cache holds the range's rows only (row = (v − first)·N + n).
  std::size_t first = 0, count = 0;
};

inline constexpr int kThreads = 128;

// The system matrix of one pair held on the GPU (docs/glpet.md §6): for every voxel v,
// sample n and primary macropixel m (e = (v·N + n)·M + m, M = the larger module's
// detector count) the R² lines of m hit a B×B block of secondary detectors whose lowest
// corner is anchor[e] = r0 | s0 << 16 (kNoLines: no line hits); w[(((v·N + n)·B² + k)·M + m]
// is the sum of the weights a of the lines hitting (r0 + k % B, s0 + k / B).
inline constexpr unsigned kNoLines = 0xFFFFFFFFu;
struct CacheDesc {
  unsigned* anchor = nullptr;
  float* w = nullptr;
  int B = 0, M = 0;
};
// Largest footprint (secondary detectors along a or t) of one macropixel over all voxels,
// samples and macropixels: B for the cache. Geometry only (no ray marching).
int macropixel_span(const SystemDesc& s, const PairDesc& p, cudaStream_t stream);
// Fills the cache (ray marching every line once). Throws if a footprint exceeds c.B.
void launch_cache_fill(const SystemDesc& s, const PairDesc& p, const CacheDesc& c, cudaStream_t stream);
// launch_forward / launch_gather on the cache: same results, no line tracing.
void launch_cached_forward(const SystemDesc& s, const PairDesc& p, const CacheDesc& c, const float* x, float* ytilde,
                           cudaStream_t stream);
void launch_cached_gather(const SystemDesc& s, const PairDesc& p, const CacheDesc& c, const float* y, const float* t,
                          bool ratio, float* b, float* sens, bool accumulate, cudaStream_t stream);

// ỹ[lor_offset + l] += Σ a·x_v/N for every voxel with x_v != 0 (ỹ zeroed by the caller).
void launch_forward(const SystemDesc& s, const PairDesc& p, const float* x, float* ytilde, cudaStream_t stream);
// b_v (+)= Σ a·z_l with z_l = ratio ? (t_l > 0 ? y_l/t_l : 0) : y_l; sens_v (+)= Σ a when sens.
// accumulate = false overwrites (first pair), true adds (further pairs).
void launch_gather(const SystemDesc& s, const PairDesc& p, const float* y, const float* t, bool ratio, float* b,
                   float* sens, bool accumulate, cudaStream_t stream);
// x_v ← s_v > 0 ? x_v·b_v/s_v : 0.
void launch_mlem_update(float* x, const float* b, const float* s, std::size_t n, cudaStream_t stream);
// x_v ← x_v·b_v/s_v where s_v > 0, x_v unchanged elsewhere (a subset's update).
void launch_subset_update(float* x, const float* b, const float* s, std::size_t n, cudaStream_t stream);
// One correspondence image: out[Y·W + X] = (r, s, weight), r = s = −1 where empty.
void launch_correspondence(const SystemDesc& s, const PairDesc& p, const double v[3], float* out3,
                           cudaStream_t stream);

}  // namespace tomo::glpet::cuda_impl
