// Bench-only H_srtᵀ forms (srt_adjoint_variants.hpp).
#include "bench/cuda/oat/srt_adjoint_variants.hpp"

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/core/check.hpp"
#include "cuda/oat/srt_device.cuh"
#include "cuda/oat/srt_gather.cuh"

namespace tomo::oat::cuda_detail {
namespace {

// The scatter the product ran before the gather: one warp per shell sample, global atomics.
__global__ void __launch_bounds__(kSrtThreads) scatter_kernel(SrtParams p, const float* __restrict__ g,
                                                               float* __restrict__ alpha) {
  const Sample s = warp_sample(p);
  if (!s.valid) return;
  const float value = g[static_cast<std::int64_t>(s.q) * p.shells + s.m];
  if (value == 0.0f) return;
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

// No add at all, but a store the compiler cannot drop (never taken for finite data).
struct NoAdds {
  static constexpr bool kPatches = true;
  static constexpr int kWords = 1;
  __device__ static NoAdds make(int) { return {}; }
  __device__ __forceinline__ float read(const float* acc, int i) const { return acc[i]; }
  __device__ __forceinline__ void operator()(float* acc, int i, float v) const {
    if (v == 3.0e38f) acc[i] = v;
  }
};

// The rings' bounds (shells, rings, azimuth ranges, the lanes' patch map) without visiting a patch.
struct NoPatches {
  static constexpr bool kPatches = false;
  static constexpr int kWords = 1;
  __device__ static NoPatches make(int) { return {}; }
  __device__ __forceinline__ float read(const float* acc, int i) const { return acc[i]; }
  __device__ __forceinline__ void operator()(float*, int, float) const {}
};

// Fixed-point sums with integer adds (shared-memory float adds are compare-and-swap loops; integer
// adds are one instruction): a term v becomes V = round(v·S) in 64 bits, added as a low word (its
// carry from the returned old value) and a high word, so the sum is exact and independent of the
// order. S = 2^62 / B with B = Σ|g|·4πR_max² bounding every voxel's sum of |terms| (each patch's
// area is at most its shell's, each weight at most 1): no partial sum overflows, and the rounding
// of the terms (≤ ½ per term) stays ~1e-14·B.
__device__ double g_abs_sum;
__device__ float g_fixed_scale;
__device__ double g_fixed_inverse;

__global__ void abs_sum_kernel(const float* __restrict__ g, std::int64_t n) {
  double s = 0;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    s += fabs(static_cast<double>(g[i]));
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(kFullMask, s, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(&g_abs_sum, s);
}

__global__ void fixed_scale_kernel(SrtParams p) {
  const double r = fmax(fabs(static_cast<double>(shell_radius(p, p.shells - 1))), fabs(static_cast<double>(shell_radius(p, 0))));
  const double b = g_abs_sum * 4.0 * 3.14159265358979323846 * r * r;
  const double s = b > 0 ? 4.611686018427387904e18 / b : 1.0;  // 2^62 / B
  g_fixed_scale = static_cast<float>(s) * 0.99f;  // float rounding of S may not raise it
  g_fixed_inverse = 1.0 / static_cast<double>(g_fixed_scale);
}

struct FixedAdd {
  static constexpr bool kPatches = true;
  static constexpr int kWords = 2;  // low words at [0, floats), high words at [floats, 2·floats)
  float scale;
  double inverse;
  int floats;
  __device__ static FixedAdd make(int floats) { return {g_fixed_scale, g_fixed_inverse, floats}; }
  __device__ __forceinline__ void operator()(float* acc, int i, float v) const {
    const long long V = __float2ll_rn(v * scale);
    const unsigned lo = static_cast<unsigned>(V);
    const int hi = static_cast<int>(V >> 32);
    unsigned* w = reinterpret_cast<unsigned*>(acc);
    const unsigned old = atomicAdd(w + i, lo);
    const int carry = old + lo < old ? 1 : 0;
    if (hi + carry != 0) atomicAdd(reinterpret_cast<int*>(w + floats + i), hi + carry);
  }
  __device__ __forceinline__ float read(const float* acc, int i) const {
    const unsigned* w = reinterpret_cast<const unsigned*>(acc);
    const unsigned long long bits = (static_cast<unsigned long long>(w[floats + i]) << 32) | w[i];
    return static_cast<float>(static_cast<double>(static_cast<long long>(bits)) * inverse);
  }
};

void launch_fixed_gather(const SrtParams& p, const GatherParams& gp, const float* g, float* alpha, float* partial,
                         cudaStream_t stream) {
  const double zero = 0;
  TOMO_CUDA_CHECK(cudaMemcpyToSymbolAsync(g_abs_sum, &zero, sizeof zero, 0, cudaMemcpyHostToDevice, stream));
  const std::int64_t n = static_cast<std::int64_t>(p.transducers) * p.shells;
  abs_sum_kernel<<<264, 256, 0, stream>>>(g, n);
  TOMO_CUDA_CHECK_LAST();
  fixed_scale_kernel<<<1, 1, 0, stream>>>(p);
  TOMO_CUDA_CHECK_LAST();
  launch_gather_as<kGatherTile[0], kGatherTile[1], kGatherTile[2], PatchTrig::exact, FixedAdd, kGatherLayout[0],
                   kGatherLayout[1], kGatherMinBlocks>(p, gp, g, alpha, partial, stream);
}

}  // namespace

std::string_view variant_name(AdjointVariant v) {
  switch (v) {
    case AdjointVariant::gather: return "gather";
    case AdjointVariant::gather_dense: return "gather-dense-layout";
    case AdjointVariant::gather_occ3: return "gather-3-blocks";
    case AdjointVariant::gather_occ4: return "gather-4-blocks";
    case AdjointVariant::gather_split: return "gather-more-chunks";
    case AdjointVariant::gather_fixed: return "gather-fixed-point";
    case AdjointVariant::gather_32x16x16: return "gather32x16x16";
    case AdjointVariant::gather_32x16x16_occ3: return "gather32x16x16-3-blocks";
    case AdjointVariant::gather_32x32x16: return "gather32x32x16";
    case AdjointVariant::gather_fast: return "gather-fast-sine";
    case AdjointVariant::gather_no_adds: return "gather-no-adds";
    case AdjointVariant::gather_bounds_only: return "gather-bounds-only";
    case AdjointVariant::scatter: return "scatter";
  }
  return "?";
}

void variant_tile(AdjointVariant v, int tile[3]) {
  const int* t = kGatherTile;
  static constexpr int a[3] = {32, 16, 16}, b[3] = {32, 32, 16};
  if (v == AdjointVariant::gather_32x16x16 || v == AdjointVariant::gather_32x16x16_occ3) t = a;
  if (v == AdjointVariant::gather_32x32x16) t = b;
  for (int i = 0; i < 3; ++i) tile[i] = t[i];
}

int variant_blocks_per_sm(AdjointVariant v) {
  return v == AdjointVariant::gather_split ? 2 * kGatherBlocksPerSm : kGatherBlocksPerSm;
}

void launch_adjoint_variant(AdjointVariant v, const SrtParams& p, const GatherParams& gp, const float* g, float* alpha,
                            float* partial, cudaStream_t stream) {
  constexpr int X = kGatherTile[0], Y = kGatherTile[1], Z = kGatherTile[2];
  constexpr int RX = kGatherLayout[0], PY = kGatherLayout[1];
  constexpr PatchTrig kExact = PatchTrig::exact;
  switch (v) {
    case AdjointVariant::gather:
    case AdjointVariant::gather_split:
      launch_gather_as<X, Y, Z, kExact, SharedAdd, RX, PY, kGatherMinBlocks>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_dense:
      launch_gather_as<X, Y, Z, kExact, SharedAdd, X, Y>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_occ3:
      launch_gather_as<X, Y, Z, kExact, SharedAdd, RX, PY, 3>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_occ4:
      launch_gather_as<X, Y, Z, kExact, SharedAdd, RX, PY, 4>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_32x16x16:
      launch_gather_as<32, 16, 16, kExact, SharedAdd, 33, 17>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_32x16x16_occ3:
      launch_gather_as<32, 16, 16, kExact, SharedAdd, 33, 17, 3>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_32x32x16:
      launch_gather_as<32, 32, 16, kExact, SharedAdd, 33, 33>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_fast:
      launch_gather_as<X, Y, Z, PatchTrig::fast, SharedAdd, RX, PY, kGatherMinBlocks>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_no_adds:
      launch_gather_as<X, Y, Z, kExact, NoAdds, RX, PY, kGatherMinBlocks>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_fixed: launch_fixed_gather(p, gp, g, alpha, partial, stream); break;
    case AdjointVariant::gather_bounds_only:
      launch_gather_as<X, Y, Z, kExact, NoPatches, RX, PY, kGatherMinBlocks>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::scatter: {
      if (p.transducers <= 0 || p.shells <= 0) return;
      const std::int64_t n = static_cast<std::int64_t>(p.grid.nx) * p.grid.ny * p.grid.nz;
      TOMO_CUDA_CHECK(cudaMemsetAsync(alpha, 0, n * sizeof(float), stream));
      scatter_kernel<<<srt_blocks(p), kSrtThreads, 0, stream>>>(p, g, alpha);
      TOMO_CUDA_CHECK_LAST();
      break;
    }
  }
}

}  // namespace tomo::oat::cuda_detail
