// B's turn-symmetric gather (voxel_back_kernels.hpp, compute/fdk/orbit_symmetry.hpp), device
// side: on an orbit where view n + r·N/kC sees the grid turned r times (S^r) where view n sees
// it, the kC views' weighted detectors share one texel (a channel each, the layer of view n),
// and a thread owns the kC columns C_r = S^r·C_0 of one orbit of the turn. One filtered fetch at
// view n's (u, v) of column C_r returns in channel k view n + k·N/kC at column S^−k·C_r = C_{r−k},
// with the same 1/t² (the packing folds in the views' scales). So B takes N/kC·kC = N fetches
// per kC voxels instead of kC·N. kC = 2: the half turn (i, j) ↦ (nx−1−i, ny−1−j), threads on
// j < ny/2; kC = 4: the quarter turn of sense ±1, threads on i, j < n/2. Included by nvcc files
// only (the product's launchers and bench_fdk's candidates, which bring their own texel stores).
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <type_traits>

#include "cuda/core/check.hpp"
#include "cuda/fdk/voxel_back_kernels.hpp"

namespace tomo::fdk::cuda_detail {

struct TurnBlock {
  float v[kVoxelBackViews * 12];
};

// Views first.. of `m12` (12 floats each, row-major) into `b` with the texel-centre shift the
// hardware path samples at (u + 0.5 = (row₀ + 0.5·row₂)·x / t, the same for v).
inline void fill_turn_block(const float* m12, int count, TurnBlock& b) {
  for (int k = 0; k < count; ++k) {
    const float* m = m12 + 12 * k;
    for (int e = 0; e < 4; ++e) {
      b.v[12 * k + e] = m[e] + 0.5f * m[8 + e];
      b.v[12 * k + 4 + e] = m[4 + e] + 0.5f * m[8 + e];
      b.v[12 * k + 8 + e] = m[8 + e];
    }
  }
}

// Half floats hold 2^-14 .. 65504 at full precision: the packing scales every texel by one
// power of two 2^k, chosen per call from max |y| (turn_max_kernel) and the largest pixel weight
// (turn_weight_max), so that the largest packed value is at most 2^14; the gather multiplies its
// sums by 2^-k (both exact). k = 0 where max |y| is 0 or not finite.
static __global__ void turn_max_kernel(const float* y, size_t n, unsigned* max_bits) {
  float m = 0.0f;
  for (size_t e = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; e < n;
       e += static_cast<size_t>(gridDim.x) * blockDim.x)
    m = fmaxf(m, fabsf(y[e]));  // NaN is dropped here; an infinite value gives k = 0
  // Non-negative floats order as their bits.
  const unsigned w = __reduce_max_sync(0xffffffffu, __float_as_uint(m));
  if ((threadIdx.x & 31) == 0) atomicMax(max_bits, w);
}

__device__ __forceinline__ int turn_exponent(const unsigned* max_bits, float weight_max) {
  const float m = __uint_as_float(*max_bits) * weight_max;
  if (!(m > 0.0f) || !(m <= 3.0e38f)) return 0;
  const int k = 14 - static_cast<int>(ceilf(log2f(m)));
  return k < -120 ? -120 : (k > 120 ? 120 : k);
}

// The product's texel store: texel (i, j) of layer n gets the kC channel values as half floats
// rounded to nearest (RG16F for kC = 2, RGBA16F for kC = 4: a 4- or 8-byte texel, which the
// texture unit filters at full or half rate). The packing takes its store as a type parameter.
struct HalfTexelStore {
  __device__ __forceinline__ void operator()(cudaSurfaceObject_t surf, int i, int j, int n, const float (&v)[2]) const {
    const __half2 h = __floats2half2_rn(v[0], v[1]);
    surf2DLayeredwrite(*reinterpret_cast<const unsigned*>(&h), surf, i * 4, j, n);
  }
  __device__ __forceinline__ void operator()(cudaSurfaceObject_t surf, int i, int j, int n, const float (&v)[4]) const {
    const __half2 lo = __floats2half2_rn(v[0], v[1]), hi = __floats2half2_rn(v[2], v[3]);
    surf2DLayeredwrite(make_uint2(*reinterpret_cast<const unsigned*>(&lo), *reinterpret_cast<const unsigned*>(&hi)),
                       surf, i * 8, j, n);
  }
};

// Texel (i, j) of layer n: channel r holds view n + r·step, weighted by pixel_weight (as
// weight_layers_kernel) and by its 1/c² (t of view n + r·step at X is c·t of view n at S^r·X).
// Store: writes the kC values into the surface's texel format (HalfTexelStore in the product).
template <int kC, class Store>
__global__ void turn_pack_kernel(const float* y, const float* weights, const float* inv_c2, int sx, int sy, int step,
                                 const unsigned* max_bits, float weight_max, cudaSurfaceObject_t surf) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int n = blockIdx.z;
  if (i >= sx || j >= sy) return;
  const int k = turn_exponent(max_bits, weight_max);
  const float fi = static_cast<float>(i), fj = static_cast<float>(j);
  float val[kC];
#pragma unroll
  for (int r = 0; r < kC; ++r) {
    const int m = n + r * step;
    const float* w = weights + kPixelWeightFloats * m;
    const float a = fmaf(w[0], fi, fmaf(w[3], fj, w[6]));
    const float b = fmaf(w[1], fi, fmaf(w[4], fj, w[7]));
    const float c = fmaf(w[2], fi, fmaf(w[5], fj, w[8]));
    const float rho = sqrtf(fmaf(a, a, fmaf(b, b, c * c)));
    val[r] = ldexpf(y[(static_cast<size_t>(m) * sy + j) * sx + i] * (w[9] * rho) * inv_c2[m], k);
  }
  Store{}(surf, i, j, n, val);
}

// acc[(r − k) mod kC] += w·channel k.
template <int kC, int kZ, int kR>
__device__ __forceinline__ void turn_add(float (&acc)[kC][kZ], int q, float w, const float2& s) {
  acc[kR][q] = fmaf(w, s.x, acc[kR][q]);
  acc[(kR + 1) % 2][q] = fmaf(w, s.y, acc[(kR + 1) % 2][q]);
}
template <int kC, int kZ, int kR>
__device__ __forceinline__ void turn_add(float (&acc)[kC][kZ], int q, float w, const float4& s) {
  acc[kR][q] = fmaf(w, s.x, acc[kR][q]);
  acc[(kR + 3) % 4][q] = fmaf(w, s.y, acc[(kR + 3) % 4][q]);
  acc[(kR + 2) % 4][q] = fmaf(w, s.z, acc[(kR + 2) % 4][q]);
  acc[(kR + 1) % 4][q] = fmaf(w, s.w, acc[(kR + 1) % 4][q]);
}

// Column C_kR's part of view n: kZ fetches at view n's (u, v) of (x, y). kInv: u and t do not
// depend on z (p[2] = p[10] = 0), so 1/t² and u are per column and v steps by one FMA.
template <int kC, int kZ, bool kInv, int kR>
__device__ __forceinline__ void turn_column(float (&acc)[kC][kZ], const float* p, cudaTextureObject_t tex, int layer,
                                            float x, float y, float z0, float dz) {
  using F = std::conditional_t<kC == 2, float2, float4>;
  if constexpr (kInv) {
    const float t = fmaf(p[8], x, fmaf(p[9], y, p[11]));  // every voxel in front (host-checked)
    const float rt = __fdividef(1.0f, t), w = rt * rt;
    const float u = fmaf(p[0], x, fmaf(p[1], y, p[3])) * rt;
    const float v0 = fmaf(p[4], x, fmaf(p[5], y, fmaf(p[6], z0, p[7]))) * rt;
    const float dv = p[6] * dz * rt;
#pragma unroll
    for (int q = 0; q < kZ; ++q)
      turn_add<kC, kZ, kR>(acc, q, w, tex2DLayered<F>(tex, u, fmaf(static_cast<float>(q), dv, v0), layer));
  } else {
    // (u·t, v·t, t) at the first voxel, and their steps along z
    float h0[3], dh[3];
#pragma unroll
    for (int e = 0; e < 3; ++e) {
      h0[e] = fmaf(p[4 * e], x, fmaf(p[4 * e + 1], y, fmaf(p[4 * e + 2], z0, p[4 * e + 3])));
      dh[e] = p[4 * e + 2] * dz;
    }
#pragma unroll
    for (int q = 0; q < kZ; ++q) {
      const float fq = static_cast<float>(q);
      const float rt = __fdividef(1.0f, fmaf(fq, dh[2], h0[2]));  // every voxel in front (host-checked)
      turn_add<kC, kZ, kR>(acc, q, rt * rt,
                           tex2DLayered<F>(tex, fmaf(fq, dh[0], h0[0]) * rt, fmaf(fq, dh[1], h0[1]) * rt, layer));
    }
  }
}

// x += the views first.. first + count of the packed layers (layer n: views n + r·N/kC), one
// thread per orbit of the turn and kZ consecutive z-voxels.
template <int kC, int kZ, bool kInv>
__global__ void __launch_bounds__(256) turn_back_kernel(const VoxelBack l, cudaTextureObject_t tex, int sense, int first,
                                                        const __grid_constant__ TurnBlock b, int count,
                                                        const unsigned* max_bits, float weight_max) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int kb = blockIdx.z * kZ;
  if (i >= (kC == 2 ? l.nx : l.nx / 2) || j >= l.ny / 2) return;
  int ci[kC], cj[kC];
  ci[0] = i;
  cj[0] = j;
#pragma unroll
  for (int r = 1; r < kC; ++r) {
    if (kC == 2) {
      ci[r] = l.nx - 1 - ci[r - 1];
      cj[r] = l.ny - 1 - cj[r - 1];
    } else if (sense > 0) {
      ci[r] = l.nx - 1 - cj[r - 1];
      cj[r] = ci[r - 1];
    } else {
      ci[r] = cj[r - 1];
      cj[r] = l.nx - 1 - ci[r - 1];
    }
  }
  float xs[kC], ys[kC];
#pragma unroll
  for (int r = 0; r < kC; ++r) {
    xs[r] = l.origin[0] + ci[r] * l.voxel[0];
    ys[r] = l.origin[1] + cj[r] * l.voxel[1];
  }
  const float z0 = l.origin[2] + kb * l.voxel[2], dz = l.voxel[2];
  float acc[kC][kZ];
#pragma unroll
  for (int r = 0; r < kC; ++r)
#pragma unroll
    for (int q = 0; q < kZ; ++q) acc[r][q] = 0.0f;
  for (int n = 0; n < count; ++n) {
    const float* p = b.v + 12 * n;
    const int layer = first + n;
    turn_column<kC, kZ, kInv, 0>(acc, p, tex, layer, xs[0], ys[0], z0, dz);
    turn_column<kC, kZ, kInv, 1>(acc, p, tex, layer, xs[1], ys[1], z0, dz);
    if constexpr (kC == 4) {
      turn_column<kC, kZ, kInv, 2>(acc, p, tex, layer, xs[2], ys[2], z0, dz);
      turn_column<kC, kZ, kInv, 3>(acc, p, tex, layer, xs[3], ys[3], z0, dz);
    }
  }
  const float unscale = ldexpf(1.0f, -turn_exponent(max_bits, weight_max));
#pragma unroll
  for (int r = 0; r < kC; ++r)
#pragma unroll
    for (int q = 0; q < kZ; ++q)
      if (kb + q < l.nz) l.x[(static_cast<size_t>(kb + q) * l.ny + cj[r]) * l.nx + ci[r]] += acc[r][q] * unscale;
}

// The packing pass (max |y|, then all N/kC layers) and the gather in launches of
// kVoxelBackViews layers; the caller zeroes x first. Store: as turn_pack_kernel's; max_bits: one
// device word of scratch; weight_max: turn_weight_max of the views; m12: the base views'
// matrices (views 0 .. N/kC − 1).
template <int kC, class Store>
void launch_turn_pack(const float* y, const float* weights, const float* inv_c2, int views, int sx, int sy,
                      unsigned* max_bits, float weight_max, cudaSurfaceObject_t surf, cudaStream_t s) {
  const int step = views / kC;
  const size_t n = static_cast<size_t>(views) * sx * sy;
  TOMO_CUDA_CHECK(cudaMemsetAsync(max_bits, 0, sizeof(unsigned), s));
  const size_t blocks = (n + 255) / 256;
  turn_max_kernel<<<static_cast<unsigned>(blocks < 4096 ? blocks : 4096), 256, 0, s>>>(y, n, max_bits);
  const dim3 block(32, 8), grid((sx + 31) / 32, (sy + 7) / 8, step);
  turn_pack_kernel<kC, Store><<<grid, block, 0, s>>>(y, weights, inv_c2, sx, sy, step, max_bits, weight_max, surf);
}

template <int kC, int kZ, bool kInv>
void launch_turn_back(const VoxelBack& l, cudaTextureObject_t tex, const float* m12, int views, int sense,
                      const unsigned* max_bits, float weight_max, cudaStream_t s) {
  const int step = views / kC;
  const int di = kC == 2 ? l.nx : l.nx / 2, dj = l.ny / 2;
  const dim3 grid((di + l.block.x - 1) / l.block.x, (dj + l.block.y - 1) / l.block.y, (l.nz + kZ - 1) / kZ);
  for (int n0 = 0; n0 < step; n0 += kVoxelBackViews) {
    const int c = step - n0 < kVoxelBackViews ? step - n0 : kVoxelBackViews;
    TurnBlock b{};
    fill_turn_block(m12 + 12 * n0, c, b);
    turn_back_kernel<kC, kZ, kInv><<<grid, l.block, 0, s>>>(l, tex, sense, n0, b, c, max_bits, weight_max);
  }
}

}  // namespace tomo::fdk::cuda_detail
