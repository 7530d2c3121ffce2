// oat H_int CUDA kernels. H_srt: one warp per data sample (q, m) of the shell samples ([Wang2013]'s
// "one-level" strategy, a thread per sample, widened to a warp so that the lanes share a ring of
// patches, each lane computes every 32nd ring for all, and the load imbalance between samples
// stays between warps); the patch arithmetic is
// kernel_math.hpp's, verbatim, so cpu, forward and transpose see the same patches and weights.
// H_srtᵀ scatters each patch's value with its eight trilinear weights by atomicAdd ([Wang2013]
// Alg. k_intHt). D and H_eir: one thread per output sample.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/core/check.hpp"
#include "cuda/oat/srt_device.cuh"
#include "cuda/oat/srt_kernels.hpp"

namespace tomo::oat::cuda_detail {
namespace {

constexpr int kThreads = kSrtThreads;

template <SrtFetch kFetch>
__global__ void __launch_bounds__(kThreads) srt_kernel(SrtParams p, const float* __restrict__ alpha,
                                                        cudaTextureObject_t vol, float* __restrict__ g) {
  const Sample s = warp_sample(p);
  if (!s.valid) return;  // the whole warp: s depends on the warp only
  const int lane = threadIdx.x & 31;
  const ShellFrame<float> f = p.frames[s.q];
  const ShellCap<float> c = shell_cap(f, shell_radius(p, s.m), p.h);
  const GridParams<float>& gp = p.grid;
  float sum = 0.0f;
  for_each_ring(c, lane, [&](const ShellRing<float>& r) {
    float ring = 0.0f;
    for (int j = lane; j < r.n_phi; j += 32) {
      float x, y, z;
      shell_point(f, c, r, j, &x, &y, &z);
      if constexpr (kFetch == SrtFetch::exact) {
        trilinear_visit(gp, x, y, z, [&](int n, float w) { ring += w * __ldg(alpha + n); });
      } else {
        ring += tex3D<float>(vol, (x - gp.x0) / gp.ds + 0.5f, (y - gp.y0) / gp.ds + 0.5f, (z - gp.z0) / gp.ds + 0.5f);
      }
    }
    sum += r.area * ring;
  });
  sum = warp_sum(sum);
  if (lane == 0) g[static_cast<std::int64_t>(s.q) * p.shells + s.m] = sum;
}

__global__ void __launch_bounds__(kThreads) srt_adjoint_kernel(SrtParams p, const float* __restrict__ g,
                                                                float* __restrict__ alpha) {
  const Sample s = warp_sample(p);
  if (!s.valid) return;
  const float value = g[static_cast<std::int64_t>(s.q) * p.shells + s.m];
  if (value == 0.0f) return;  // as the cpu: nothing to scatter (the whole warp reads one value)
  const int lane = threadIdx.x & 31;
  const ShellFrame<float> f = p.frames[s.q];
  const ShellCap<float> c = shell_cap(f, shell_radius(p, s.m), p.h);
  for_each_ring(c, lane, [&](const ShellRing<float>& r) {
    const float v = r.area * value;
    for (int j = lane; j < r.n_phi; j += 32) {
      float x, y, z;
      shell_point(f, c, r, j, &x, &y, &z);
      trilinear_visit(p.grid, x, y, z, [&](int n, float w) { atomicAdd(alpha + n, w * v); });
    }
  });
}

__global__ void d_kernel(TimeParams t, const float* __restrict__ g, float* __restrict__ p) {
  const std::int64_t s = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= static_cast<std::int64_t>(t.transducers) * t.samples) return;
  const std::int64_t q = s / t.samples;
  const int k = static_cast<int>(s % t.samples);
  p[s] = d_sample(g + q * (t.samples + 2), k, t.t_min, t.dt, t.cD);
}

__global__ void d_adjoint_kernel(TimeParams t, const float* __restrict__ p, float* __restrict__ g) {
  const int M = t.samples + 2;
  const std::int64_t s = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= static_cast<std::int64_t>(t.transducers) * M) return;
  const std::int64_t q = s / M;
  g[s] = d_adjoint_sample(p + q * t.samples, t.samples, static_cast<int>(s % M), t.t_min, t.dt, t.cD);
}

template <bool kAdjoint>
__global__ void eir_kernel(TimeParams t, const float* __restrict__ taps, int J, const float* __restrict__ in,
                           float* __restrict__ out) {
  const std::int64_t s = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= static_cast<std::int64_t>(t.transducers) * t.samples) return;
  const float* row = in + (s / t.samples) * t.samples;
  const int k = static_cast<int>(s % t.samples);
  out[s] = kAdjoint ? eir_adjoint_sample(row, t.samples, taps, J, k) : eir_sample(row, t.samples, taps, J, k);
}

unsigned blocks_of(std::int64_t n, int threads) { return static_cast<unsigned>((n + threads - 1) / threads); }

}  // namespace

void launch_srt(const SrtParams& p, const float* alpha, cudaTextureObject_t volume, float* g, SrtFetch fetch,
                cudaStream_t stream) {
  if (p.transducers <= 0 || p.shells <= 0) return;
  const unsigned blocks = srt_blocks(p);
  switch (fetch) {
    case SrtFetch::exact:
      srt_kernel<SrtFetch::exact><<<blocks, kThreads, 0, stream>>>(p, alpha, volume, g);
      break;
    case SrtFetch::hardware:
      srt_kernel<SrtFetch::hardware><<<blocks, kThreads, 0, stream>>>(p, alpha, volume, g);
      break;
  }
  TOMO_CUDA_CHECK_LAST();
}

void launch_srt_adjoint(const SrtParams& p, const float* g, float* alpha, cudaStream_t stream) {
  if (p.transducers <= 0 || p.shells <= 0) return;
  srt_adjoint_kernel<<<srt_blocks(p), kThreads, 0, stream>>>(p, g, alpha);
  TOMO_CUDA_CHECK_LAST();
}

void launch_d(const TimeParams& t, const float* g, float* p, cudaStream_t stream) {
  const std::int64_t n = static_cast<std::int64_t>(t.transducers) * t.samples;
  if (n <= 0) return;
  d_kernel<<<blocks_of(n, 256), 256, 0, stream>>>(t, g, p);
  TOMO_CUDA_CHECK_LAST();
}

void launch_d_adjoint(const TimeParams& t, const float* p, float* g, cudaStream_t stream) {
  const std::int64_t n = static_cast<std::int64_t>(t.transducers) * (t.samples + 2);
  if (n <= 0) return;
  d_adjoint_kernel<<<blocks_of(n, 256), 256, 0, stream>>>(t, p, g);
  TOMO_CUDA_CHECK_LAST();
}

void launch_eir(const TimeParams& t, const float* taps, int J, const float* p, float* u, cudaStream_t stream) {
  const std::int64_t n = static_cast<std::int64_t>(t.transducers) * t.samples;
  if (n <= 0) return;
  if (J <= 0) {
    TOMO_CUDA_CHECK(cudaMemcpyAsync(u, p, n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    return;
  }
  eir_kernel<false><<<blocks_of(n, 256), 256, 0, stream>>>(t, taps, J, p, u);
  TOMO_CUDA_CHECK_LAST();
}

void launch_eir_adjoint(const TimeParams& t, const float* taps, int J, const float* u, float* p, cudaStream_t stream) {
  const std::int64_t n = static_cast<std::int64_t>(t.transducers) * t.samples;
  if (n <= 0) return;
  if (J <= 0) {
    TOMO_CUDA_CHECK(cudaMemcpyAsync(p, u, n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    return;
  }
  eir_kernel<true><<<blocks_of(n, 256), 256, 0, stream>>>(t, taps, J, u, p);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace tomo::oat::cuda_detail
