// oat H_int CUDA kernels. H_srt: one warp per data sample (q, m) of the shell samples ([Wang2013]'s
// "one-level" strategy, a thread per sample, widened to a warp so that the lanes share a ring of
// patches, each lane computes every 32nd ring for all, and the load imbalance between samples
// stays between warps); the patch arithmetic is
// kernel_math.hpp's, verbatim, so cpu, forward and transpose see the same patches and weights.
// Where the geometry has the quarter-turn symmetry, H_srt takes the four transducers of an orbit
// per patch from a float4 copy of the image interleaved with its turns (srt_sym_forward.cuh), and
// H_srtᵀ adds their terms to such a copy by float4 atomics (srt_sym_merged.cuh).
// H_srtᵀ gathers: a block per tile of voxels sums the patches that touch it (srt_gather.cuh)
// instead of scattering each patch's eight weights with global atomics ([Wang2013] Alg. k_intHt;
// bench/cuda/oat keeps that scatter for comparison). D and H_eir: one thread per output sample.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cuda/core/check.hpp"
#include "cuda/oat/srt_device.cuh"
#include "cuda/oat/srt_gather.cuh"
#include "cuda/oat/srt_kernels.hpp"
#include "cuda/oat/srt_sym_forward.cuh"
#include "cuda/oat/srt_sym_merged.cuh"

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

// Σ|g| in a fixed order (so the scale is the same from run to run): each block sums its
// grid-stride share into fixed[3 + block], one thread sums those into fixed[0] and sets the scale S
// (srt_gather.hpp fixed_scale) and 1/S in fixed[1], fixed[2] (srt_gather.cuh FixedAdd).
constexpr int kScaleBlocks = 256, kScaleThreads = 256;

__global__ void __launch_bounds__(kScaleThreads) abs_sum_kernel(const float* __restrict__ g, std::int64_t n,
                                                               double* fixed) {
  __shared__ double warps[kScaleThreads / 32];
  double s = 0;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(kScaleThreads) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(kScaleBlocks) * kScaleThreads)
    s += fabs(static_cast<double>(g[i]));
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(kFullMask, s, o);
  if ((threadIdx.x & 31) == 0) warps[threadIdx.x >> 5] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    double b = 0;
    for (int w = 0; w < kScaleThreads / 32; ++w) b += warps[w];
    fixed[3 + blockIdx.x] = b;
  }
}

__global__ void fixed_scale_kernel(SrtParams p, double* fixed) {
  double b = 0;
  for (int i = 0; i < kScaleBlocks; ++i) b += fixed[3 + i];
  const double r = fmax(fabs(static_cast<double>(shell_radius(p, p.shells - 1))),
                        fabs(static_cast<double>(shell_radius(p, 0))));
  const float s = fixed_scale(b, r);
  fixed[0] = b;
  fixed[1] = s;
  fixed[2] = 1.0 / static_cast<double>(s);
}

__global__ void gather_reduce_kernel(const float* __restrict__ partial, int chunks, std::int64_t n,
                                     float* __restrict__ alpha) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int c = 0; c < chunks; ++c) s += partial[c * n + i];
  alpha[i] = s;
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

// One block per ring length n, its threads over the azimuths: shell_point's very expression.
__global__ void trig_table_kernel(float2* table) {
  const int n = static_cast<int>(blockIdx.x) + 1;
  for (int j = static_cast<int>(threadIdx.x); j < n; j += static_cast<int>(blockDim.x)) {
    float sp, cp;
    m_sincos((static_cast<float>(j) + 0.5f) * 2.0f * kPi<float> / static_cast<float>(n), &sp, &cp);
    table[n * (n - 1) / 2 + j] = make_float2(sp, cp);
  }
}

__global__ void interleave_kernel(const float* __restrict__ alpha, float4* __restrict__ c4, int n, int nz) {
  const std::int64_t v = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t plane = static_cast<std::int64_t>(n) * n;
  if (v >= plane * nz) return;
  const int i = static_cast<int>(v % n), j = static_cast<int>((v / n) % n);
  const std::int64_t k = v / plane;
  float4 out;
  float* o = &out.x;
  for (int r = 0; r < 4; ++r) {
    int a, b;
    turn_voxel(n, r, i, j, &a, &b);
    o[r] = alpha[a + static_cast<std::int64_t>(n) * b + plane * k];
  }
  c4[v] = out;
}

// α(W) = Σ_r c4[R⁻ʳW].r: member r's terms were added at the voxel V with RʳV = W.
__global__ void deinterleave_kernel(const float4* __restrict__ c4, float* __restrict__ alpha, int n, int nz) {
  const std::int64_t v = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t plane = static_cast<std::int64_t>(n) * n;
  if (v >= plane * nz) return;
  const int i = static_cast<int>(v % n), j = static_cast<int>((v / n) % n);
  const std::int64_t k = v / plane;
  float s = 0.0f;
  for (int r = 0; r < 4; ++r) {
    int a, b;
    turn_voxel(n, (4 - r) & 3, i, j, &a, &b);
    const float4 t = c4[a + static_cast<std::int64_t>(n) * b + plane * k];
    s += r == 0 ? t.x : r == 1 ? t.y : r == 2 ? t.z : t.w;
  }
  alpha[v] = s;
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

GatherParams plan_gather(const SrtParams& p, const float centre[3], float rho, float max_distance, const int tile[3],
                         int target_blocks) {
  GatherParams gp;
  const int n[3] = {p.grid.nx, p.grid.ny, p.grid.nz};
  for (int a = 0; a < 3; ++a) gp.tiles[a] = (n[a] + tile[a] - 1) / tile[a];
  gp.tile_count = gp.tiles[0] * gp.tiles[1] * gp.tiles[2];
  gp.cx = centre[0], gp.cy = centre[1], gp.cz = centre[2], gp.rho = rho;
  gp.margin = gather_margin(p.grid.ds, max_distance);
  for (int k = 0; k < gp.tiles[2]; ++k)  // the kernel's own test of whether a cap reaches a tile
    for (int j = 0; j < gp.tiles[1]; ++j)
      for (int i = 0; i < gp.tiles[0]; ++i) {
        const GatherTile<float> t =
            gather_tile(p.grid, i * tile[0], j * tile[1], k * tile[2], tile[0], tile[1], tile[2], gp.margin);
        const float dx = t.c[0] - gp.cx, dy = t.c[1] - gp.cy, dz = t.c[2] - gp.cz, reach = rho + t.r;
        if (dx * dx + dy * dy + dz * dz <= reach * reach) ++gp.busy_tiles;
      }
  // Few busy tiles (small grids): split the transducers so that the device fills; at most 8
  // partial images.
  const int Q = std::max(1, p.transducers);
  const int want = gp.busy_tiles > 0 ? (target_blocks + gp.busy_tiles - 1) / gp.busy_tiles : 1;
  const int chunks = std::clamp(want, 1, std::min(8, Q));
  gp.q_per_chunk = (Q + chunks - 1) / chunks;
  gp.chunks = (Q + gp.q_per_chunk - 1) / gp.q_per_chunk;
  return gp;
}

void launch_gather_scale(const SrtParams& p, const GatherParams& gp, const float* g, cudaStream_t stream) {
  if (p.transducers <= 0 || p.shells <= 0) return;
  const std::int64_t n = static_cast<std::int64_t>(p.transducers) * p.shells;
  abs_sum_kernel<<<kScaleBlocks, kScaleThreads, 0, stream>>>(g, n, gp.fixed);
  TOMO_CUDA_CHECK_LAST();
  fixed_scale_kernel<<<1, 1, 0, stream>>>(p, gp.fixed);
  TOMO_CUDA_CHECK_LAST();
}

void launch_srt_gather(const SrtParams& p, const GatherParams& gp, const float* g, float* alpha, float* partial,
                       cudaStream_t stream) {
  if (p.transducers <= 0 || p.shells <= 0 || gp.tile_count <= 0) return;
  launch_gather_scale(p, gp, g, stream);
  // The table's reads coalesce when a warp's lanes take neighbouring patches of one ring
  // (InterleavedDeal).
  launch_gather_as<kGatherTile[0], kGatherTile[1], kGatherTile[2], TablePoints, FixedAdd, kGatherLayout[0],
                   kGatherLayout[1], kGatherMinBlocks, LineCut, InterleavedDeal>(p, gp, g, alpha, partial, stream);
}

void launch_srt_symmetric(const SrtParams& p, const SymmetricParams& sp, const float* alpha, float4* c4, float* g,
                          cudaStream_t stream) {
  if (sp.orbits <= 0 || p.shells <= 0) return;
  const std::int64_t N = static_cast<std::int64_t>(p.grid.nx) * p.grid.ny * p.grid.nz;
  interleave_kernel<<<blocks_of(N, 256), 256, 0, stream>>>(alpha, c4, sp.n, p.grid.nz);
  TOMO_CUDA_CHECK_LAST();
  launch_sym_forward_as(p, sp, c4, g, stream);
}

void launch_srt_symmetric_adjoint(const SrtParams& p, const SymmetricParams& sp, const float* g, float4* c4,
                                  float* alpha, cudaStream_t stream) {
  launch_sym_merged_as<kSymMergedMinBlocks>(p, sp, g, c4, alpha, stream);
}

void launch_symmetric_deinterleave(const SrtParams& p, const SymmetricParams& sp, const float4* c4, float* alpha,
                                   cudaStream_t stream) {
  const std::int64_t N = static_cast<std::int64_t>(p.grid.nx) * p.grid.ny * p.grid.nz;
  if (N <= 0) return;
  deinterleave_kernel<<<blocks_of(N, 256), 256, 0, stream>>>(c4, alpha, sp.n, p.grid.nz);
  TOMO_CUDA_CHECK_LAST();
}

void launch_trig_table(float2* table, int n, cudaStream_t stream) {
  if (n <= 0) return;
  trig_table_kernel<<<static_cast<unsigned>(n), 128, 0, stream>>>(table);
  TOMO_CUDA_CHECK_LAST();
}

void launch_gather_reduce(const float* partial, int chunks, float* alpha, const SrtParams& p, cudaStream_t stream) {
  const std::int64_t n = static_cast<std::int64_t>(p.grid.nx) * p.grid.ny * p.grid.nz;
  if (n <= 0) return;
  gather_reduce_kernel<<<blocks_of(n, 256), 256, 0, stream>>>(partial, chunks, n, alpha);
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
