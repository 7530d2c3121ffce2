// CUDA kernels of one strip ML-EM iteration ([Bialas2015] eq. (5), §4.2), float32.
// Both use the arithmetic of strip/kernel_math.hpp, the same code the cpu backend runs in double.
#include "cuda/core/check.hpp"
#include "cuda/strip/kernels.hpp"

namespace tomo::strip::cuda_impl {

namespace {

__device__ __forceinline__ float fetch_rho(cudaTextureObject_t tex, int j, int k) {
  return tex2D<float>(tex, k + 0.5f, j + 0.5f);
}

// Thread granularity: each thread walks the bounding box of its own event twice (no cache:
// a thread has too few registers for an event's pixels), [Bialas2015] §4.2 first paragraph.
__global__ void strip_thread_kernel(IterationArgs a) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; e < a.n; e += stride) {
    const float* ev = a.events + 3 * e;
    const auto f = make_frame<float>(ev[0], ev[1], ev[2], a.kp);
    const PixelBox b = pixel_box(f, a.grid);
    float den = 0.f;
    for (int j = b.j0; j <= b.j1; ++j) {
      const float dy = a.grid.y0 + j * a.grid.py - f.y;
      for (int k = b.k0; k <= b.k1; ++k) {
        const float dz = a.grid.z0 + k * a.grid.pz - f.z;
        const float q = ellipse_form(f, dy, dz);
        if (q <= a.kp.cut) den += kernel_value(f, a.kp, dy, dz, q) * fetch_rho(a.rho, j, k);
      }
    }
    if (!(den > 0.f)) continue;
    const float inv = 1.f / den;
    for (int j = b.j0; j <= b.j1; ++j) {
      const float dy = a.grid.y0 + j * a.grid.py - f.y;
      for (int k = b.k0; k <= b.k1; ++k) {
        const float dz = a.grid.z0 + k * a.grid.pz - f.z;
        const float q = ellipse_form(f, dy, dz);
        if (q <= a.kp.cut)
          atomicAdd(a.rho_new + j * a.grid.nz + k, kernel_value(f, a.kp, dy, dz, q) * fetch_rho(a.rho, j, k) * inv);
      }
    }
  }
}

// Warp granularity ([Bialas2015] §4.2): one warp per event, the denominator reduced with
// __shfl_xor_sync, persistent warps looping over events. Lane r owns row j0 + r of the bounding
// box and walks only the z interval of that row inside the ellipse (the interval
// |b1| <= b1_half of make_row, the cpu backend's loop), with the y-only terms of eq. (7)
// hoisted out of the row (kernel_row_value), so no lane evaluates a pixel outside the ellipse.
// Boxes of more than 32 rows take further passes of 32 rows (recomputed, not cached).
// The kernel along one row as the row layout evaluates it per pixel: kernel_row_value with its
// constants folded (log₂e, ½, 2/σz², the norm), so a pixel costs two MUFU ops (rsqrt, ex2) and
// about ten FMA/MUL. exp(−½(q − u²/Q)) = 2^(a0 + c2·b1² + t²) with t = √(½ log₂e)·u/√Q.
struct RowEval {
  float Q0, Q1, u0, u1, a0, c2, norm;
};

__device__ __forceinline__ RowEval row_eval(const KernelRow<float>& r, const KernelParams<float>& k) {
  constexpr float kLog2e = 1.4426950408889634f;
  const float s = sqrtf(0.5f * kLog2e);
  return {r.Q0, r.Q1, s * r.u0, s * r.u1, -0.5f * kLog2e * r.qy, -kLog2e * k.inv_vz, k.norm};
}

// = kernel_row_value(row, k, b1) within float rounding (tests: warp vs cpu ≤ 1e-4).
__device__ __forceinline__ float row_value(const RowEval& e, float b1) {
  const float Q = fmaf(e.Q1, b1, e.Q0);
  const float rs = rsqrtf(Q);
  const float t = fmaf(e.u1, b1, e.u0) * rs;
  const float v = e.norm * rs * exp2f(fmaf(t, t, fmaf(e.c2 * b1, b1, e.a0)));
  return Q > 0.f ? v : 0.f;
}

struct RowSpan {
  RowEval eval;
  int k0 = 1, k1 = 0;  // inclusive; empty when k1 < k0
  float b1_0 = 0.f;    // b1 at k0
};

__device__ __forceinline__ RowSpan row_span(const EventFrame<float>& f, const IterationArgs& a, const PixelBox& b,
                                            int j) {
  RowSpan r;
  if (j > b.j1) return r;
  const KernelRow<float> row = make_row(f, a.kp, a.grid.y0 + j * a.grid.py - f.y);
  if (row.b1_half < 0.f) return r;
  const float zc = f.z + row.dy * f.tan;  // b1 = 0
  const float inv_pz = 1.f / a.grid.pz;
  r.k0 = max(b.k0, int(ceilf((zc - row.b1_half - a.grid.z0) * inv_pz)));
  r.k1 = min(b.k1, int(floorf((zc + row.b1_half - a.grid.z0) * inv_pz)));
  r.b1_0 = a.grid.z0 + r.k0 * a.grid.pz - zc;
  r.eval = row_eval(row, a.kp);
  return r;
}

// Row-layout accumulation of ρ_new. kShared: the block's image in shared memory as 32-bit
// fixed point (value · kFixedScale), added with native integer atomics — a float atomicAdd on
// shared memory compiles to a compare-and-swap loop (LDS, FADD, ATOMS.CAST, branch). A block
// flushes its image to the global float image after every kEventsPerFlush events per warp,
// which bounds a pixel's integer: one event adds at most 1 in all (Σ P·ρ/den = 1), so a pixel
// holds at most 8 warps × kEventsPerFlush = 8192 < 2^31 / kFixedScale = 16384. Rounding to
// nearest adds at most 2^-18 ≈ 3.8e-6 per contribution (≈ 1e-3 of a typical P·ρ/den ≈ 5e-3),
// unbiased, so the image's relative L2 error stays ~1e-6. Else: float atomics on global memory.
inline constexpr float kFixedScale = 131072.0f;  // 2^17
inline constexpr float kFixedInv = 1.0f / 131072.0f;
inline constexpr int kEventsPerFlush = 1024;
static_assert(double(kThreadsPerBlock / 32) * kEventsPerFlush * 1.01 < 2147483647.0 / kFixedScale,
              "a pixel of the block's fixed-point image could overflow");

template <bool kShared>
__device__ __forceinline__ void accumulate(float* global, int i, float v) {
  extern __shared__ int s_fixed[];
  if constexpr (kShared)
    atomicAdd(s_fixed + i, __float2int_rn(v * kFixedScale));
  else
    atomicAdd(global + i, v);
}

// One event of the row layout (see strip_row_kernel).
template <bool kShared>
__device__ __forceinline__ void row_event(const IterationArgs& a, float zu, float zd, float dl, int lane) {
  const float pz = a.grid.pz;
  const auto f = make_frame<float>(zu, zd, dl, a.kp);
  const PixelBox b = pixel_box(f, a.grid);
  if (b.j1 < b.j0 || b.k1 < b.k0) return;  // uniform
  const int j = b.j0 + lane;
  const RowSpan r = row_span(f, a, b, j);
  const int width = max(0, r.k1 - r.k0 + 1);
  const int cached = __reduce_max_sync(0xffffffffu, min(width, kRowCachePerLane));
  const float ty = j + 0.5f, tx0 = float(r.k0) + 0.5f;
  float w[kRowCachePerLane];
  float den = 0.f;
  // Branch-free over the cached pixels: lanes past their row's end read a clamped texel and
  // keep 0 (a select, not a branch).
#pragma unroll
  for (int c = 0; c < kRowCachePerLane; ++c) {
    w[c] = 0.f;
    if (c < cached) {  // uniform
      const float v = row_value(r.eval, fmaf(float(c), pz, r.b1_0)) *
                      tex2D<float>(a.rho, tx0 + float(c), ty);
      w[c] = c < width ? v : 0.f;
      den += w[c];
    }
  }
  for (int c = kRowCachePerLane; c < width; ++c)
    den += row_value(r.eval, fmaf(float(c), pz, r.b1_0)) * fetch_rho(a.rho, j, r.k0 + c);
  for (int jj = j + 32; jj <= b.j1; jj += 32) {  // rows past the first 32
    const RowSpan rr = row_span(f, a, b, jj);
    for (int c = 0; c <= rr.k1 - rr.k0; ++c)
      den += row_value(rr.eval, fmaf(float(c), pz, rr.b1_0)) * fetch_rho(a.rho, jj, rr.k0 + c);
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) den += __shfl_xor_sync(0xffffffffu, den, off);
  if (!(den > 0.f)) return;
  const float inv = 1.f / den;
  const int row0 = j * a.grid.nz + r.k0;
#pragma unroll
  for (int c = 0; c < kRowCachePerLane; ++c)
    if (w[c] > 0.f) accumulate<kShared>(a.rho_new, row0 + c, w[c] * inv);
  for (int c = kRowCachePerLane; c < width; ++c)
    accumulate<kShared>(a.rho_new, row0 + c,
                        row_value(r.eval, fmaf(float(c), pz, r.b1_0)) * fetch_rho(a.rho, j, r.k0 + c) * inv);
  for (int jj = j + 32; jj <= b.j1; jj += 32) {
    const RowSpan rr = row_span(f, a, b, jj);
    for (int c = 0; c <= rr.k1 - rr.k0; ++c)
      accumulate<kShared>(a.rho_new, jj * a.grid.nz + rr.k0 + c,
                          row_value(rr.eval, fmaf(float(c), pz, rr.b1_0)) *
                              fetch_rho(a.rho, jj, rr.k0 + c) * inv);
  }
}

template <bool kShared>
__global__ void __launch_bounds__(kThreadsPerBlock, 4) strip_row_kernel(IterationArgs a) {
  extern __shared__ int s_fixed[];
  const int npix = a.grid.ny * a.grid.nz;
  const int lane = threadIdx.x & 31;
  const std::size_t warp = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const std::size_t warps = (std::size_t(gridDim.x) * blockDim.x) >> 5;
  if constexpr (!kShared) {
    for (std::size_t e = warp; e < a.n; e += warps) {  // uniform across the warp
      const float* ev = a.events + 3 * e;
      row_event<false>(a, __ldg(ev), __ldg(ev + 1), __ldg(ev + 2), lane);
    }
  } else {
    for (int i = threadIdx.x; i < npix; i += blockDim.x) s_fixed[i] = 0;
    __syncthreads();
    // Rounds of kEventsPerFlush events per warp (the same interleaving as one pass over e), the
    // same number of rounds in every block, each ending with a flush of the block's image.
    const std::size_t per_round = warps * kEventsPerFlush;
    for (std::size_t base = 0; base < a.n; base += per_round) {
      // The next event's three floats are loaded while this one is processed.
      std::size_t e = base + warp;
      float zu = 0.f, zd = 0.f, dl = 0.f;
      if (e < a.n) zu = __ldg(a.events + 3 * e), zd = __ldg(a.events + 3 * e + 1), dl = __ldg(a.events + 3 * e + 2);
      for (int i = 0; i < kEventsPerFlush && e < a.n; ++i) {
        const std::size_t next = e + warps;
        float nzu = 0.f, nzd = 0.f, ndl = 0.f;
        if (i + 1 < kEventsPerFlush && next < a.n)
          nzu = __ldg(a.events + 3 * next), nzd = __ldg(a.events + 3 * next + 1), ndl = __ldg(a.events + 3 * next + 2);
        row_event<true>(a, zu, zd, dl, lane);
        e = next, zu = nzu, zd = nzd, dl = ndl;
      }
      __syncthreads();
      for (int i = threadIdx.x; i < npix; i += blockDim.x) {
        const int v = s_fixed[i];
        if (v != 0) {
          atomicAdd(a.rho_new + i, float(v) * kFixedInv);
          s_fixed[i] = 0;
        }
      }
      __syncthreads();
    }
  }
}

template <bool kShared>
void* warp_kernel() {
  return reinterpret_cast<void*>(strip_row_kernel<kShared>);
}

}  // namespace

void launch_thread_granularity(const IterationArgs& a, int blocks, cudaStream_t stream) {
  if (a.n == 0) return;
  strip_thread_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(a);
  TOMO_CUDA_CHECK_LAST();
}

void launch_warp_granularity(const IterationArgs& a, int blocks, bool shared_accumulation, cudaStream_t stream) {
  if (a.n == 0) return;
  IterationArgs args = a;
  void* params[] = {&args};
  std::size_t bytes = 0;
  if (shared_accumulation) {
    bytes = sizeof(float) * a.grid.ny * a.grid.nz;
    TOMO_CUDA_CHECK(cudaFuncSetAttribute(warp_kernel<true>(), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(bytes)));
  }
  TOMO_CUDA_CHECK(cudaLaunchKernel(shared_accumulation ? warp_kernel<true>() : warp_kernel<false>(),
                                   dim3(blocks), dim3(kThreadsPerBlock), params, bytes, stream));
}

int warp_blocks_per_sm(bool shared_accumulation, std::size_t shared_bytes) {
  int n = 0;
  void* k = shared_accumulation ? warp_kernel<true>() : warp_kernel<false>();
  if (shared_accumulation)
    TOMO_CUDA_CHECK(
        cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
  TOMO_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k, kThreadsPerBlock,
                                                                shared_accumulation ? shared_bytes : 0));
  return n;
}

int thread_blocks_per_sm() {
  int n = 0;
  TOMO_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, strip_thread_kernel, kThreadsPerBlock, 0));
  return n;
}

}  // namespace tomo::strip::cuda_impl
