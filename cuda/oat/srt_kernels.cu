// oat H_int CUDA kernels. H_srt: one warp per data sample (q, m) of the shell samples (the seed's
// "one-level" strategy, a thread per sample, widened to a warp so that the lanes share a ring of
// patches, each lane computes every 32nd ring for all, and the load imbalance between samples
// stays between warps); the patch arithmetic is
// kernel_math.hpp's, verbatim, so cpu, forward and transpose see the same patches and weights.
// H_srtᵀ scatters each patch's value with its eight trilinear weights by atomicAdd (seed Alg.
// k_intHt). D and H_eir: one thread per output sample.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/core/check.hpp"
#include "cuda/oat/srt_kernels.hpp"

namespace tomo::oat::cuda_detail {
namespace {

constexpr int kThreads = 32 * kSrtWarpsPerBlock;
constexpr unsigned kFullMask = 0xffffffffu;

struct Sample {
  bool valid;
  int q, m;
};

__device__ __forceinline__ Sample warp_sample(const SrtParams& p) {
  const std::int64_t s = static_cast<std::int64_t>(blockIdx.x) * kSrtWarpsPerBlock + (threadIdx.x >> 5);
  const std::int64_t n = static_cast<std::int64_t>(p.transducers) * p.shells;
  if (s >= n) return {false, 0, 0};
  return {true, static_cast<int>(s / p.shells), static_cast<int>(s % p.shells)};
}

__device__ __forceinline__ float shell_radius(const SrtParams& p, int m) {
  return p.c0 * (p.t_min + (static_cast<float>(m) - 1.0f) * p.dt);
}

// The probes' patch position: shell_point with the fast sine/cosine.
__device__ __forceinline__ void fast_point(const ShellFrame<float>& f, const ShellCap<float>& c,
                                           const ShellRing<float>& r, int j, float* x, float* y, float* z) {
  float sp, cp;
  __sincosf((static_cast<float>(j) + 0.5f) * (2.0f * kPi<float>) / static_cast<float>(r.n_phi), &sp, &cp);
  const float a = c.R * r.cos_t, b = c.R * r.sin_t * cp, d = c.R * r.sin_t * sp;
  *x = f.sx + a * f.ex + b * f.ux + d * f.vx;
  *y = f.sy + a * f.ey + b * f.uy + d * f.vy;
  *z = f.sz + a * f.ez + b * f.uz + d * f.vz;
}

// The probes' trilinear neighbourhood: always eight voxels (indices clamped into the grid, so the
// memory traffic is that of an interior patch), weights from one reciprocal.
template <class F>
__device__ __forceinline__ void fast_visit(const GridParams<float>& g, float inv_ds, float x, float y, float z, F&& f) {
  const float fx = (x - g.x0) * inv_ds, fy = (y - g.y0) * inv_ds, fz = (z - g.z0) * inv_ds;
  const int i0 = min(max(__float2int_rd(fx), 0), g.nx - 2), j0 = min(max(__float2int_rd(fy), 0), g.ny - 2),
            k0 = min(max(__float2int_rd(fz), 0), g.nz - 2);
  const float ax = fx - i0, ay = fy - j0, az = fz - k0;
  const int base = i0 + g.nx * (j0 + g.ny * k0);
#pragma unroll
  for (int c = 0; c < 8; ++c) {
    const int a = c & 1, b = (c >> 1) & 1, e = c >> 2;
    const float w = (a ? ax : 1.0f - ax) * (b ? ay : 1.0f - ay) * (e ? az : 1.0f - az);
    f(base + a + g.nx * (b + g.ny * e), w);
  }
}

// Calls per_ring(r) for the cap's rings in order, every lane with the same r: lane l computes ring
// i0 + l (kernel_math shell_ring, three sine/cosine pairs) and the warp shares it by shuffles,
// instead of every lane computing every ring. All lanes must call this (the shuffles are warp-wide).
template <class PerRing>
__device__ __forceinline__ void for_each_ring(const ShellCap<float>& c, int lane, PerRing&& per_ring) {
  for (int i0 = 0; i0 < c.n_theta; i0 += 32) {
    ShellRing<float> mine{1, 0.0f, 0.0f, 1.0f};
    if (i0 + lane < c.n_theta) {
      mine = shell_ring(c, i0 + lane);
      // kernel_math's band cos(iΔθ) − cos((i+1)Δθ) cancels in fp32 on the first rings of a large
      // shell; 2·sin((i+½)Δθ)·sin(Δθ/2) is the same number without the cancellation.
      const float dth = c.theta_max / static_cast<float>(c.n_theta);
      mine.area = c.R * c.R * (2.0f * mine.sin_t * sinf(0.5f * dth)) * 2.0f * kPi<float> /
                  static_cast<float>(mine.n_phi);
    }
    const int n = min(32, c.n_theta - i0);
    for (int l = 0; l < n; ++l) {
      const ShellRing<float> r{__shfl_sync(kFullMask, mine.n_phi, l), __shfl_sync(kFullMask, mine.area, l),
                               __shfl_sync(kFullMask, mine.sin_t, l), __shfl_sync(kFullMask, mine.cos_t, l)};
      per_ring(r);
    }
  }
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(kFullMask, v, o);
  return v;
}

template <SrtFetch kFetch>
__global__ void __launch_bounds__(kThreads) srt_kernel(SrtParams p, const float* __restrict__ alpha,
                                                        cudaTextureObject_t vol, float* __restrict__ g) {
  const Sample s = warp_sample(p);
  if (!s.valid) return;  // the whole warp: s depends on the warp only
  const int lane = threadIdx.x & 31;
  const ShellFrame<float> f = p.frames[s.q];
  const ShellCap<float> c = shell_cap(f, shell_radius(p, s.m), p.h);
  const GridParams<float>& gp = p.grid;
  const float inv_ds = 1.0f / gp.ds;
  float sum = 0.0f;
  for_each_ring(c, lane, [&](const ShellRing<float>& r) {
    float ring = 0.0f;
    for (int j = lane; j < r.n_phi; j += 32) {
      float x, y, z;
      if constexpr (kFetch == SrtFetch::exact || kFetch == SrtFetch::hardware)
        shell_point(f, c, r, j, &x, &y, &z);
      else
        fast_point(f, c, r, j, &x, &y, &z);
      if constexpr (kFetch == SrtFetch::exact) {
        trilinear_visit(gp, x, y, z, [&](int n, float w) { ring += w * __ldg(alpha + n); });
      } else if constexpr (kFetch == SrtFetch::hardware) {
        ring += tex3D<float>(vol, (x - gp.x0) / gp.ds + 0.5f, (y - gp.y0) / gp.ds + 0.5f, (z - gp.z0) / gp.ds + 0.5f);
      } else if constexpr (kFetch == SrtFetch::probe_texture) {
        ring += tex3D<float>(vol, (x - gp.x0) * inv_ds + 0.5f, (y - gp.y0) * inv_ds + 0.5f, (z - gp.z0) * inv_ds + 0.5f);
      } else {
        fast_visit(gp, inv_ds, x, y, z, [&](int n, float w) { ring += w * __ldg(alpha + n); });
      }
    }
    sum += r.area * ring;
  });
  sum = warp_sum(sum);
  if (lane == 0) g[static_cast<std::int64_t>(s.q) * p.shells + s.m] = sum;
}

template <bool kProbe>
__global__ void __launch_bounds__(kThreads) srt_adjoint_kernel(SrtParams p, const float* __restrict__ g,
                                                                float* __restrict__ alpha) {
  const Sample s = warp_sample(p);
  if (!s.valid) return;
  const float value = g[static_cast<std::int64_t>(s.q) * p.shells + s.m];
  if (value == 0.0f) return;  // as the cpu: nothing to scatter (the whole warp reads one value)
  const int lane = threadIdx.x & 31;
  const ShellFrame<float> f = p.frames[s.q];
  const ShellCap<float> c = shell_cap(f, shell_radius(p, s.m), p.h);
  const float inv_ds = 1.0f / p.grid.ds;
  for_each_ring(c, lane, [&](const ShellRing<float>& r) {
    const float v = r.area * value;
    for (int j = lane; j < r.n_phi; j += 32) {
      float x, y, z;
      if constexpr (kProbe) {
        fast_point(f, c, r, j, &x, &y, &z);
        fast_visit(p.grid, inv_ds, x, y, z, [&](int n, float w) { atomicAdd(alpha + n, w * v); });
      } else {
        shell_point(f, c, r, j, &x, &y, &z);
        trilinear_visit(p.grid, x, y, z, [&](int n, float w) { atomicAdd(alpha + n, w * v); });
      }
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

unsigned srt_blocks(const SrtParams& p) {
  const std::int64_t n = static_cast<std::int64_t>(p.transducers) * p.shells;
  return static_cast<unsigned>((n + kSrtWarpsPerBlock - 1) / kSrtWarpsPerBlock);
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
    case SrtFetch::probe_loads:
      srt_kernel<SrtFetch::probe_loads><<<blocks, kThreads, 0, stream>>>(p, alpha, volume, g);
      break;
    case SrtFetch::probe_texture:
      srt_kernel<SrtFetch::probe_texture><<<blocks, kThreads, 0, stream>>>(p, alpha, volume, g);
      break;
  }
  TOMO_CUDA_CHECK_LAST();
}

void launch_srt_adjoint(const SrtParams& p, const float* g, float* alpha, bool probe, cudaStream_t stream) {
  if (p.transducers <= 0 || p.shells <= 0) return;
  if (probe)
    srt_adjoint_kernel<true><<<srt_blocks(p), kThreads, 0, stream>>>(p, g, alpha);
  else
    srt_adjoint_kernel<false><<<srt_blocks(p), kThreads, 0, stream>>>(p, g, alpha);
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
