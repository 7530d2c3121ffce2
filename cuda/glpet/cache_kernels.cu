// glpet CUDA kernels of the system matrix cached on the GPU (CacheDesc, docs/glpet.md §3):
// the footprint span, the fill (every line traced and ray-marched once), and the forward and
// gathering passes that read the cache instead of tracing.
#include "cuda/core/check.hpp"
#include "cuda/core/device_buffer.hpp"
#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "cuda/glpet/device.cuh"
#include "cuda/glpet/kernels.hpp"

namespace tomo::glpet::cuda_impl {

namespace {

using namespace device;


__global__ void span_kernel(SystemDesc s, PairDesc p, int* span) {
  size_t vox, idx;
  if (!block_voxel(s, vox, idx)) return;
  int local = 0;
  for (int n = 0; n < s.N; ++n) {
    double v[3];
    sample_pos(s, vox, n, v);
    const Frame f = make_frame(p, v, s.R);
    const int na = p.m[f.primary].n_a;
    for (int mp = threadIdx.x; mp < macro_count(p, f.primary); mp += blockDim.x) {
      int r0 = 1 << 30, r1 = -1, s0 = 1 << 30, s1 = -1;
      for (int sy = 0; sy < s.R; ++sy)
        for (int sx = 0; sx < s.R; ++sx) {
          LineGeom g;
          if (!trace_geometry(s, p, f, (mp % na) * s.R + sx, (mp / na) * s.R + sy, g)) continue;
          r0 = min(r0, g.r), r1 = max(r1, g.r), s0 = min(s0, g.s), s1 = max(s1, g.s);
        }
      if (r1 >= 0) local = max(local, max(r1 - r0, s1 - s0) + 1);
    }
  }
  __shared__ int block_max;
  if (threadIdx.x == 0) block_max = 0;
  __syncthreads();
  atomicMax(&block_max, local);
  __syncthreads();
  if (threadIdx.x == 0 && block_max > 0) atomicMax(span, block_max);
}

inline constexpr int kMaxB = 4;

__global__ void cache_fill_kernel(SystemDesc s, PairDesc p, CacheDesc c, int* overflow) {
  size_t vox, local;
  if (!block_voxel(s, vox, local)) return;
  const int BB = c.B * c.B;
  for (int n = 0; n < s.N; ++n) {
    double v[3];
    sample_pos(s, vox, n, v);
    const Frame f = make_frame(p, v, s.R);
    const int na = p.m[f.primary].n_a, macro = macro_count(p, f.primary);
    const size_t row = local * s.N + n;
    for (int mp = threadIdx.x; mp < c.M; mp += blockDim.x) {
      float acc[kMaxB * kMaxB];
      for (int k = 0; k < BB; ++k) acc[k] = 0.f;
      int r0 = 1 << 30, s0 = 1 << 30;
      if (mp < macro) {
        for (int sy = 0; sy < s.R; ++sy)  // the block's corner: geometry only
          for (int sx = 0; sx < s.R; ++sx) {
            LineGeom g;
            if (!trace_geometry(s, p, f, (mp % na) * s.R + sx, (mp / na) * s.R + sy, g)) continue;
            r0 = min(r0, g.r), s0 = min(s0, g.s);
          }
        if (r0 != 1 << 30)
          for (int sy = 0; sy < s.R; ++sy)
            for (int sx = 0; sx < s.R; ++sx) {
              LineGeom g;
              if (!trace_geometry(s, p, f, (mp % na) * s.R + sx, (mp / na) * s.R + sy, g)) continue;
              const int dr = g.r - r0, ds = g.s - s0;
              if (dr >= c.B || ds >= c.B) {
                atomicExch(overflow, 1);
                continue;
              }
              acc[dr + c.B * ds] += float(g.omega) * transmission(s.vol, g.y1, g.y2, s.K);
            }
      }
      c.anchor[row * c.M + mp] = r0 == 1 << 30 ? kNoLines : unsigned(r0) | (unsigned(s0) << 16);
      for (int k = 0; k < BB; ++k) c.w[(row * BB + k) * c.M + mp] = acc[k];
    }
  }
}

// Calls f(lor, w) for every non-zero cached weight of voxel `vox` (all its samples; `local`: its
// index in the visited range, which picks the cache rows), lor relative to the pair's atlas;
// threads of the block split the macropixels.
template <class F>
__device__ inline void for_each_cached(const SystemDesc& s, const PairDesc& p, const CacheDesc& c, size_t vox,
                                       size_t local, F&& f) {
  const int BB = c.B * c.B;
  for (int n = 0; n < s.N; ++n) {
    double v[3];
    sample_pos(s, vox, n, v);
    const int primary = make_frame(p, v, s.R).primary;
    const int na = p.m[primary].n_a, macro = macro_count(p, primary);
    const size_t row = local * s.N + n;
    for (int mp = threadIdx.x; mp < macro; mp += blockDim.x) {
      const unsigned a = __ldg(c.anchor + row * c.M + mp);
      if (a == kNoLines) continue;
      const int r0 = int(a & 0xFFFFu), s0 = int(a >> 16);
      for (int k = 0; k < BB; ++k) {
        const float w = __ldg(c.w + (row * BB + k) * c.M + mp);
        if (w != 0.f) f(lor_index(p, primary, mp % na, mp / na, r0 + k % c.B, s0 + k / c.B), w);
      }
    }
  }
}

__global__ void cached_forward_kernel(SystemDesc s, PairDesc p, CacheDesc c, const float* __restrict__ x,
                                      float* __restrict__ yt) {
  size_t vox, local;
  if (!block_voxel(s, vox, local)) return;
  const float xv = x[vox];
  if (xv == 0.f) return;
  const float scale = xv / s.N;
  for_each_cached(s, p, c, vox, local, [&](size_t lor, float w) { atomicAdd(yt + p.lor_offset + lor, w * scale); });
}

__global__ void cached_gather_kernel(SystemDesc s, PairDesc p, CacheDesc c, const float* __restrict__ y,
                                     const float* __restrict__ t, bool ratio, float* __restrict__ b,
                                     float* __restrict__ sens, bool accumulate) {
  size_t vox, local;
  if (!block_voxel(s, vox, local)) return;
  float sb = 0.f, ss = 0.f;
  for_each_cached(s, p, c, vox, local, [&](size_t lor, float w) {
    ss += w;
    if (!y) return;
    const size_t l = p.lor_offset + lor;
    float z = __ldg(y + l);
    if (ratio) {
      const float tl = __ldg(t + l);
      z = tl > 0.f ? z / tl : 0.f;
    }
    sb = fmaf(w, z, sb);
  });
  store_block_sums(s, vox, sb, ss, b, sens, accumulate);
}
}  // namespace

int macropixel_span(const SystemDesc& s, const PairDesc& p, cudaStream_t stream) {
  cuda::DeviceBuffer<int> span(1);
  span.fill_zero(stream);
  span_kernel<<<voxel_grid(voxels(s)), kThreads, 0, stream>>>(s, p, span.data());
  TOMO_CUDA_CHECK_LAST();
  int h = 0;
  TOMO_CUDA_CHECK(cudaMemcpyAsync(&h, span.data(), sizeof(int), cudaMemcpyDeviceToHost, stream));
  TOMO_CUDA_CHECK(cudaStreamSynchronize(stream));
  return h;
}

void launch_cache_fill(const SystemDesc& s, const PairDesc& p, const CacheDesc& c, cudaStream_t stream) {
  if (c.B < 1 || c.B > kMaxB) throw Error(str_cat("glpet cuda: cache block ", c.B, " outside 1..", kMaxB));
  cuda::DeviceBuffer<int> overflow(1);
  overflow.fill_zero(stream);
  cache_fill_kernel<<<voxel_grid(voxels(s)), kThreads, 0, stream>>>(s, p, c, overflow.data());
  TOMO_CUDA_CHECK_LAST();
  int h = 0;
  TOMO_CUDA_CHECK(cudaMemcpyAsync(&h, overflow.data(), sizeof(int), cudaMemcpyDeviceToHost, stream));
  TOMO_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (h) throw Error(str_cat("glpet cuda: a macropixel footprint exceeds the cache block ", c.B));
}

void launch_cached_forward(const SystemDesc& s, const PairDesc& p, const CacheDesc& c, const float* x, float* yt,
                           cudaStream_t stream) {
  cached_forward_kernel<<<voxel_grid(voxels(s)), kThreads, 0, stream>>>(s, p, c, x, yt);
  TOMO_CUDA_CHECK_LAST();
}

void launch_cached_gather(const SystemDesc& s, const PairDesc& p, const CacheDesc& c, const float* y, const float* t,
                          bool ratio, float* b, float* sens, bool accumulate, cudaStream_t stream) {
  cached_gather_kernel<<<voxel_grid(voxels(s)), kThreads, 0, stream>>>(s, p, c, y, t, ratio, b, sens, accumulate);
  TOMO_CUDA_CHECK_LAST();
}


}  // namespace tomo::glpet::cuda_impl
