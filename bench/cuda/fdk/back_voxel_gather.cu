// The row-sharing candidate of B (see back_voxel_gather.hpp).
#include "bench/cuda/fdk/back_voxel_gather.hpp"

#include <cuda_runtime.h>

#include "cuda/core/check.hpp"

namespace tomo::bench::fdk_b {
namespace {

// The four texels of the bilinear footprint at unnormalised (x, y) of `layer`: CUDA has no layered
// gather intrinsic, so tld4 by PTX. Order as tex2Dgather: (i0, j1), (i1, j1), (i1, j0), (i0, j0).
__device__ __forceinline__ float4 gather_layered(cudaTextureObject_t tex, float x, float y, int layer) {
  float4 r;
  asm volatile("tld4.r.a2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];"
               : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
               : "l"(tex), "r"(layer), "f"(x), "f"(y));
  return r;
}

// Matrices with texel centres folded in (u + 0.5 = pixel + 0.5 + 0.5 …): here pixel coordinates,
// so the kernel subtracts nothing; every voxel in front of every source (the bench checks).
// kUp: v grows with z (p[6]·dz > 0); otherwise the column is walked from its top voxel down, so
// that the rows a voxel needs never go back.
template <int kZ, bool kUp>
__device__ __forceinline__ void column(float (&acc)[kZ], cudaTextureObject_t tex, int layer, float pu, float pv0,
                                       float dv, float w) {
  const float fu = floorf(pu), au = pu - fu;
  const float gx = fu + 1.0f;  // between the centres of columns fu and fu + 1
  // The rows are walked in gathers of two, from the first voxel's lower row r0.
  const int qs = kUp ? 0 : kZ - 1;
  const float pvs = fmaf(static_cast<float>(qs), dv, pv0);
  const int r0 = static_cast<int>(floorf(pvs));
  int m = 0;  // gather m holds rows r0 + 2m and r0 + 2m + 1
  float4 g = gather_layered(tex, gx, static_cast<float>(r0) + 1.0f, layer);
  float lo = fmaf(au, g.z - g.w, g.w), hi = fmaf(au, g.y - g.x, g.x), prev_hi = 0.0f;
#pragma unroll
  for (int s = 0; s < kZ; ++s) {
    const int q = kUp ? s : kZ - 1 - s;
    const float pv = fmaf(static_cast<float>(q), dv, pv0);
    const float fv = floorf(pv), av = pv - fv;
    const int d = static_cast<int>(fv) - r0;  // ≥ 0, never decreasing along the walk
    const int need = (d + 1) >> 1;
    // Bounded: a column far off the detector (|dv| large) still ends (the bench's geometry has
    // |dv| < 2, one gather per voxel at most).
#pragma unroll 1
    for (int guard = 0; m < need && guard < 64; ++guard) {
      ++m;
      prev_hi = hi;
      g = gather_layered(tex, gx, static_cast<float>(r0 + 2 * m) + 1.0f, layer);
      lo = fmaf(au, g.z - g.w, g.w);
      hi = fmaf(au, g.y - g.x, g.x);
    }
    const bool even = (d & 1) == 0;  // rows d, d + 1 = this gather's; odd: previous upper, this lower
    const float a0 = even ? lo : prev_hi, a1 = even ? hi : lo;
    acc[q] = fmaf(w, fmaf(av, a1 - a0, a0), acc[q]);
  }
}

template <int kZ>
__global__ void __launch_bounds__(256) gather_kernel(const Args a, cudaTextureObject_t tex, int first,
                                                     const __grid_constant__ ViewBlock<kMaxAll> b, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int kb = blockIdx.z * kZ;
  if (i >= a.nx || j >= a.ny) return;
  const float x = a.ox + i * a.vx, y = a.oy + j * a.vy;
  const float z0 = a.oz + kb * a.vz, dz = a.vz;
  float acc[kZ];
#pragma unroll
  for (int q = 0; q < kZ; ++q) acc[q] = 0.0f;
  for (int n = 0; n < count; ++n) {
    const float* p = b.v + 12 * n;
    const float t = fmaf(p[8], x, fmaf(p[9], y, p[11]));
    const float rt = __fdividef(1.0f, t), w = rt * rt;
    const float pu = fmaf(p[0], x, fmaf(p[1], y, p[3])) * rt;
    const float pv0 = fmaf(p[4], x, fmaf(p[5], y, fmaf(p[6], z0, p[7]))) * rt;
    const float dv = p[6] * dz * rt;
    if (p[6] * dz >= 0.0f)  // uniform per view
      column<kZ, true>(acc, tex, first + n, pu, pv0, dv, w);
    else
      column<kZ, false>(acc, tex, first + n, pu, pv0, dv, w);
  }
#pragma unroll
  for (int q = 0; q < kZ; ++q)
    if (kb + q < a.nz) {
      float* o = a.x + (static_cast<size_t>(kb + q) * a.ny + j) * a.nx + i;
      *o = acc[q] + (first > 0 ? *o : 0.0f);
    }
}

// Control and general-geometry twin: one gather per voxel and view at its own u, v (no rows
// shared), fp32 weights. Against the product's filtered fetch it prices tld4 plus the ALU lerp.
template <int kZ>
__global__ void __launch_bounds__(256) gather_each_kernel(const Args a, cudaTextureObject_t tex, int first,
                                                          const __grid_constant__ ViewBlock<kMaxAll> b, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int kb = blockIdx.z * kZ;
  if (i >= a.nx || j >= a.ny) return;
  const float x = a.ox + i * a.vx, y = a.oy + j * a.vy;
  const float z0 = a.oz + kb * a.vz, dz = a.vz;
  float acc[kZ];
#pragma unroll
  for (int q = 0; q < kZ; ++q) acc[q] = 0.0f;
  for (int n = 0; n < count; ++n) {
    const float* p = b.v + 12 * n;
    const float nu0 = fmaf(p[0], x, fmaf(p[1], y, fmaf(p[2], z0, p[3])));
    const float nv0 = fmaf(p[4], x, fmaf(p[5], y, fmaf(p[6], z0, p[7])));
    const float t0 = fmaf(p[8], x, fmaf(p[9], y, fmaf(p[10], z0, p[11])));
    const float su = p[2] * dz, sv = p[6] * dz, st = p[10] * dz;
#pragma unroll
    for (int q = 0; q < kZ; ++q) {
      const float fq = static_cast<float>(q);
      const float nu = fmaf(fq, su, nu0), nv = fmaf(fq, sv, nv0), t = fmaf(fq, st, t0);
      const float rt = __fdividef(1.0f, t);
      const float pu = nu * rt, pv = nv * rt;
      const float fu = floorf(pu), fv = floorf(pv), au = pu - fu, av = pv - fv;
      const float4 g = gather_layered(tex, fu + 1.0f, fv + 1.0f, first + n);
      const float lo = fmaf(au, g.z - g.w, g.w), hi = fmaf(au, g.y - g.x, g.x);
      acc[q] = fmaf(rt * rt, fmaf(av, hi - lo, lo), acc[q]);
    }
  }
#pragma unroll
  for (int q = 0; q < kZ; ++q)
    if (kb + q < a.nz) {
      float* o = a.x + (static_cast<size_t>(kb + q) * a.ny + j) * a.nx + i;
      *o = acc[q] + (first > 0 ? *o : 0.0f);
    }
}

template <int kZ>
void launch(const Variant& v, const Args& a, cudaTextureObject_t tex, const float* mats, int views, cudaStream_t s) {
  const dim3 block(v.bx, v.by), grid((a.nx + v.bx - 1) / v.bx, (a.ny + v.by - 1) / v.by, (a.nz + kZ - 1) / kZ);
  for (int n0 = 0; n0 < views; n0 += kMaxAll) {
    const int c = views - n0 < kMaxAll ? views - n0 : kMaxAll;
    static ViewBlock<kMaxAll> b;  // 24 KB: not on the stack
    for (int k = 0; k < c; ++k)
      for (int e = 0; e < 12; ++e) b.v[12 * k + e] = mats[12 * (n0 + k) + e];  // pixel coordinates
    if (v.zmode == ZMode::invariant)
      gather_kernel<kZ><<<grid, block, 0, s>>>(a, tex, n0, b, c);
    else
      gather_each_kernel<kZ><<<grid, block, 0, s>>>(a, tex, n0, b, c);
    TOMO_CUDA_CHECK_LAST();
  }
}

}  // namespace

bool run_gather(const Variant& v, const Args& a, cudaTextureObject_t tex, const float* mats, int views,
                cudaStream_t s) {
  if (v.zmode == ZMode::invariant && !z_invariant(mats, views)) return false;
  if (v.kz == 16)
    launch<16>(v, a, tex, mats, views, s);
  else if (v.kz == 32)
    launch<32>(v, a, tex, mats, views, s);
  else if (v.kz == 64)
    launch<64>(v, a, tex, mats, views, s);
  else
    return false;
  return true;
}

}  // namespace tomo::bench::fdk_b
