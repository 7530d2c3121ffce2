// CUDA kernels of the safir operator ([Locans2017] §5.3), float32, one thread per event; the ray
// tracing is compute/safir/kernel_math.hpp, the same code the cpu backend runs in double.
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>

#include "cuda/core/check.hpp"
#include "cuda/safir/dependent_launch.hpp"
#include "cuda/safir/kernels.hpp"

namespace tomo::safir::cuda_impl {

namespace {

constexpr std::uint32_t kIdMask = 0x3fffffffu;

int blocks_for(std::size_t n) {
  // Grid-stride loops: at most 65535 × 8 blocks, enough to fill any current GPU many times.
  const std::size_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(b < 65535 * 8 ? (b > 0 ? b : 1) : 65535 * 8);
}

// Kernel 1 of §5.3.1: the label of each line; the histogram is summed per block in shared
// memory first (four global counters would serialise millions of atomics).
__global__ void label_kernel(SortArgs a) {
  __shared__ unsigned int hist[kLabelCount];
  if (threadIdx.x < kLabelCount) hist[threadIdx.x] = 0;
  __syncthreads();
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < a.n; i += std::size_t(gridDim.x) * blockDim.x) {
    const uint2 e = a.events[i];
    const float4 pa = __ldg(a.crystals + e.x), pb = __ldg(a.crystals + e.y);
    const float fa[3] = {pa.x, pa.y, pa.z}, fb[3] = {pb.x, pb.y, pb.z};
    const int label = label_line(fa, fb, a.box);
    a.keys_in[i] = static_cast<std::uint8_t>(label);
    a.order_in[i] = static_cast<std::uint32_t>(i);
    atomicAdd(hist + label, 1u);
  }
  __syncthreads();
  if (threadIdx.x < kLabelCount && hist[threadIdx.x]) atomicAdd(a.counts + threadIdx.x, static_cast<unsigned long long>(hist[threadIdx.x]));
}

__global__ void pack_kernel(SortArgs a) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < a.n; i += std::size_t(gridDim.x) * blockDim.x) {
    const uint2 e = a.events[a.order_out[i]];
    a.sorted[i] = make_uint2(e.x | (std::uint32_t(a.keys_out[i]) << 30), e.y);
  }
}

struct Ends {
  float a[3], b[3];
  int label;
};

__device__ __forceinline__ Ends ends(const ProjectArgs& p, std::size_t l) {
  const uint2 e = p.sorted[l];
  const float4 pa = __ldg(p.crystals + (e.x & kIdMask)), pb = __ldg(p.crystals + e.y);
  return {{pa.x, pa.y, pa.z}, {pb.x, pb.y, pb.z}, static_cast<int>(e.x >> 30)};
}

struct Gather {  // forward projection: Σ a_lj f_j
  const float* f;
  float sum;
  __device__ void operator()(int j, float w) { sum += w * __ldg(f + j); }
};

struct Scatter {  // back-projection: acc_j += a_lj v
  float* acc;
  float v;
  __device__ void operator()(int j, float w) { atomicAdd(acc + j, w * v); }
};

__global__ void forward_kernel(ProjectArgs p) {
  for (std::size_t l = p.first + blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; l < p.n;
       l += std::size_t(gridDim.x) * blockDim.x) {
    const Ends e = ends(p, l);
    Gather g{p.f, p.randoms};
    walk_line(e.a, e.b, e.label, p.box, g);
    p.values[l] = g.sum;
  }
}

__global__ void back_kernel(ProjectArgs p) {
  for (std::size_t l = p.first + blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; l < p.n;
       l += std::size_t(gridDim.x) * blockDim.x) {
    const float v = p.values ? p.values[l] : 1.0f;
    if (v == 0.0f) continue;
    const Ends e = ends(p, l);
    Scatter s{p.acc, v};
    walk_line(e.a, e.b, e.label, p.box, s);
  }
}

// Eq. (10) for one event: ȳ by gather, then a_lj / ȳ by atomics; the image is not written here.
__global__ void mlem_kernel(ProjectArgs p) {
  for (std::size_t l = p.first + blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; l < p.n;
       l += std::size_t(gridDim.x) * blockDim.x) {
    const Ends e = ends(p, l);
    Gather g{p.f, p.randoms};
    walk_line(e.a, e.b, e.label, p.box, g);
    if (!(g.sum > 0.0f)) continue;
    Scatter s{p.acc, 1.0f / g.sum};
    walk_line(e.a, e.b, e.label, p.box, s);
  }
}

__global__ void update_kernel(float* f, const float* c, const float* s, std::size_t voxels) {
  for (std::size_t j = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; j < voxels; j += std::size_t(gridDim.x) * blockDim.x)
    f[j] = s[j] > 0.0f ? f[j] * c[j] / s[j] : 0.0f;
}

// The update with the accumulator cleared behind it, ready for the next subset's back pass, and
// y[0, n) cleared too (the next tiled forward pass accumulates ȳ into zeros without a memset).
__global__ void update_clear_kernel(float* f, float* c, const float* s, std::size_t voxels, float* y, std::size_t n) {
  allow_next_grid();
  wait_for_previous_grid();  // c and ȳ of the back pass before
  const std::size_t all = voxels > n ? voxels : n;
  for (std::size_t j = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; j < all; j += std::size_t(gridDim.x) * blockDim.x) {
    if (j < voxels) {
      f[j] = s[j] > 0.0f ? f[j] * c[j] / s[j] : 0.0f;
      c[j] = 0.0f;
    }
    if (j < n) y[j] = 0.0f;
  }
}

__global__ void sphere_kernel(const float* f, const int4* offsets, int n_offsets, int nx, int ny, int nz, float4* sums) {
  const long long voxels = static_cast<long long>(nx) * ny * nz;
  for (long long v = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; v < voxels;
       v += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int x = static_cast<int>(v % nx), y = static_cast<int>((v / nx) % ny), z = static_cast<int>(v / (static_cast<long long>(nx) * ny));
    float4 r = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int o = 0; o < n_offsets; ++o) {
      const int4 d = __ldg(offsets + o);
      const int px = x + d.x, py = y + d.y, pz = z + d.z;
      if (px < 0 || py < 0 || pz < 0 || px >= nx || py >= ny || pz >= nz) continue;
      const float val = __ldg(f + px + static_cast<long long>(nx) * (py + static_cast<long long>(ny) * pz));
      if (d.w == 0) {
        r.x += val;
        r.z += 1.f;
      } else {
        r.y += val;
        r.w += 1.f;
      }
    }
    sums[v] = r;
  }
}

}  // namespace

std::size_t sort_temp_bytes(std::size_t n) {
  std::size_t bytes = 0;
  TOMO_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<const std::uint8_t*>(nullptr),
                                                  static_cast<std::uint8_t*>(nullptr), static_cast<const std::uint32_t*>(nullptr),
                                                  static_cast<std::uint32_t*>(nullptr), static_cast<int>(n), 0, 2));
  return bytes;
}

void label_and_sort(const SortArgs& a, cudaStream_t stream) {
  TOMO_CUDA_CHECK(cudaMemsetAsync(a.counts, 0, 4 * sizeof(unsigned long long), stream));
  if (a.n == 0) return;
  label_kernel<<<blocks_for(a.n), kThreads, 0, stream>>>(a);
  TOMO_CUDA_CHECK_LAST();
  std::size_t bytes = a.temp_bytes;
  // Labels are 0..3: two key bits; the radix sort is stable, so the acquisition order stays within a label.
  TOMO_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(a.temp, bytes, a.keys_in, a.keys_out, a.order_in, a.order_out,
                                                  static_cast<int>(a.n), 0, 2, stream));
  pack_kernel<<<blocks_for(a.n), kThreads, 0, stream>>>(a);
  TOMO_CUDA_CHECK_LAST();
}

void launch_forward(const ProjectArgs& a, cudaStream_t stream) {
  if (a.n <= a.first) return;
  forward_kernel<<<blocks_for(a.n - a.first), kThreads, 0, stream>>>(a);
  TOMO_CUDA_CHECK_LAST();
}

void launch_back(const ProjectArgs& a, cudaStream_t stream) {
  if (a.n <= a.first) return;
  back_kernel<<<blocks_for(a.n - a.first), kThreads, 0, stream>>>(a);
  TOMO_CUDA_CHECK_LAST();
}

void launch_mlem(const ProjectArgs& a, cudaStream_t stream) {
  if (a.n <= a.first) return;
  mlem_kernel<<<blocks_for(a.n - a.first), kThreads, 0, stream>>>(a);
  TOMO_CUDA_CHECK_LAST();
}

void launch_update(float* f, const float* c, const float* s, std::size_t voxels, cudaStream_t stream) {
  update_kernel<<<blocks_for(voxels), kThreads, 0, stream>>>(f, c, s, voxels);
  TOMO_CUDA_CHECK_LAST();
}

void launch_update_clear(float* f, float* c, const float* s, std::size_t voxels, float* y, std::size_t n,
                         cudaStream_t stream) {
  if (!y) n = 0;
  launch_dependent(update_clear_kernel, blocks_for(std::max(voxels, n)), kThreads, 0, stream, f, c, s, voxels, y, n);
  TOMO_CUDA_CHECK_LAST();
}

void launch_sphere_sums(const float* f, const int4* offsets, int n_offsets, int nx, int ny, int nz, float4* sums,
                        cudaStream_t stream) {
  sphere_kernel<<<blocks_for(static_cast<std::size_t>(nx) * ny * nz), kThreads, 0, stream>>>(f, offsets, n_offsets, nx,
                                                                                               ny, nz, sums);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace tomo::safir::cuda_impl
