// The turn-symmetric candidates of B (see back_voxel_sym.hpp).
#include "bench/cuda/fdk/back_voxel_sym.hpp"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <type_traits>

#include "cuda/core/check.hpp"
#include "cuda/fdk/voxel_back_kernels.hpp"

namespace tomo::bench::fdk_b {
namespace {

namespace cd = tomo::fdk::cuda_detail;

// The k-channel layered array (N/k layers), its surface and linear-filtered texture; remade when
// the stack's size or the format changes.
struct Packed {
  cudaArray_t array = nullptr;
  cudaSurfaceObject_t surf = 0;
  cudaTextureObject_t tex = 0;
  int sx = 0, sy = 0, layers = 0, channels = 0;
  bool half = false;
};
Packed g_packed;

void release() {
  if (g_packed.tex) TOMO_CUDA_CHECK(cudaDestroyTextureObject(g_packed.tex));
  if (g_packed.surf) TOMO_CUDA_CHECK(cudaDestroySurfaceObject(g_packed.surf));
  if (g_packed.array) TOMO_CUDA_CHECK(cudaFreeArray(g_packed.array));
  g_packed = Packed{};
}

void ensure(int sx, int sy, int layers, int channels, bool half) {
  if (g_packed.array && g_packed.sx == sx && g_packed.sy == sy && g_packed.layers == layers &&
      g_packed.channels == channels && g_packed.half == half)
    return;
  release();
  const cudaChannelFormatDesc desc = channels == 2 ? (half ? cudaCreateChannelDescHalf2() : cudaCreateChannelDesc<float2>())
                                                   : (half ? cudaCreateChannelDescHalf4() : cudaCreateChannelDesc<float4>());
  TOMO_CUDA_CHECK(cudaMalloc3DArray(&g_packed.array, &desc, make_cudaExtent(sx, sy, layers),
                                    cudaArrayLayered | cudaArraySurfaceLoadStore));
  cudaResourceDesc res{};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = g_packed.array;
  TOMO_CUDA_CHECK(cudaCreateSurfaceObject(&g_packed.surf, &res));
  cudaTextureDesc td{};
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeBorder;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = 0;
  TOMO_CUDA_CHECK(cudaCreateTextureObject(&g_packed.tex, &res, &td, nullptr));
  g_packed.sx = sx;
  g_packed.sy = sy;
  g_packed.layers = layers;
  g_packed.channels = channels;
  g_packed.half = half;
}

// Texel (i, j) of layer n: channel r holds view n + r·step, weighted as the product weights it
// (pixel_weight) and by 1/c² of its view (t of view n + r·step at X is c·t of view n at S^r·X).
template <int kC, bool kHalf>
__global__ void pack_kernel(const float* y, const float* weights, const float* inv_c2, int sx, int sy, int step,
                            cudaSurfaceObject_t surf) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int n = blockIdx.z;
  if (i >= sx || j >= sy) return;
  const float fi = static_cast<float>(i), fj = static_cast<float>(j);
  float val[kC];
#pragma unroll
  for (int r = 0; r < kC; ++r) {
    const int m = n + r * step;
    const float* w = weights + cd::kPixelWeightFloats * m;
    const float a = fmaf(w[0], fi, fmaf(w[3], fj, w[6]));
    const float b = fmaf(w[1], fi, fmaf(w[4], fj, w[7]));
    const float c = fmaf(w[2], fi, fmaf(w[5], fj, w[8]));
    const float rho = sqrtf(fmaf(a, a, fmaf(b, b, c * c)));
    val[r] = y[(static_cast<size_t>(m) * sy + j) * sx + i] * (w[9] * rho) * inv_c2[m];
  }
  if constexpr (kC == 2 && kHalf) {
    const __half2 h = __floats2half2_rn(val[0], val[1]);
    surf2DLayeredwrite(*reinterpret_cast<const unsigned*>(&h), surf, i * 4, j, n);
  } else if constexpr (kC == 2) {
    surf2DLayeredwrite(make_float2(val[0], val[1]), surf, i * 8, j, n);
  } else if constexpr (kHalf) {
    const __half2 lo = __floats2half2_rn(val[0], val[1]), hi = __floats2half2_rn(val[2], val[3]);
    surf2DLayeredwrite(make_uint2(*reinterpret_cast<const unsigned*>(&lo), *reinterpret_cast<const unsigned*>(&hi)),
                       surf, i * 8, j, n);
  } else {
    surf2DLayeredwrite(make_float4(val[0], val[1], val[2], val[3]), surf, i * 16, j, n);
  }
}

// acc[(r − k) mod kC] += w·channel k: channel k of the fetch at column C_r is view n + k·step at
// the column S^−k·C_r = C_{r−k}.
template <int kC, int kZ, int kR>
__device__ __forceinline__ void add(float (&acc)[kC][kZ], int q, float w, const float2& s) {
  acc[kR][q] = fmaf(w, s.x, acc[kR][q]);
  acc[(kR + kC - 1) % kC][q] = fmaf(w, s.y, acc[(kR + kC - 1) % kC][q]);
}
template <int kC, int kZ, int kR>
__device__ __forceinline__ void add(float (&acc)[kC][kZ], int q, float w, const float4& s) {
  acc[kR][q] = fmaf(w, s.x, acc[kR][q]);
  acc[(kR + 3) % 4][q] = fmaf(w, s.y, acc[(kR + 3) % 4][q]);
  acc[(kR + 2) % 4][q] = fmaf(w, s.z, acc[(kR + 2) % 4][q]);
  acc[(kR + 1) % 4][q] = fmaf(w, s.w, acc[(kR + 1) % 4][q]);
}

// One column's part of a view: kZ fetches at view n's (u, v) of column (x, y).
template <int kC, int kZ, bool kInv, int kR>
__device__ __forceinline__ void column(float (&acc)[kC][kZ], const float* p, cudaTextureObject_t tex, int layer,
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
      add<kC, kZ, kR>(acc, q, w, tex2DLayered<F>(tex, u, fmaf(static_cast<float>(q), dv, v0), layer));
  } else {
    const float nu0 = fmaf(p[0], x, fmaf(p[1], y, fmaf(p[2], z0, p[3])));
    const float nv0 = fmaf(p[4], x, fmaf(p[5], y, fmaf(p[6], z0, p[7])));
    const float t0 = fmaf(p[8], x, fmaf(p[9], y, fmaf(p[10], z0, p[11])));
    const float su = p[2] * dz, sv = p[6] * dz, st = p[10] * dz;
#pragma unroll
    for (int q = 0; q < kZ; ++q) {
      const float fq = static_cast<float>(q);
      const float rt = __fdividef(1.0f, fmaf(fq, st, t0));
      add<kC, kZ, kR>(acc, q, rt * rt, tex2DLayered<F>(tex, fmaf(fq, su, nu0) * rt, fmaf(fq, sv, nv0) * rt, layer));
    }
  }
}

// One thread per orbit of the turn (the half-turn's: j < ny/2; the quarter-turn's: i, j < n/2)
// and kZ consecutive z-voxels; columns C_r = S^r·C_0.
template <int kC, int kZ, bool kInv>
__global__ void __launch_bounds__(256) sym_kernel(const Args a, cudaTextureObject_t tex, int sense, int first,
                                                  const __grid_constant__ ViewBlock<64> b, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int kb = blockIdx.z * kZ;
  if (i >= (kC == 2 ? a.nx : a.nx / 2) || j >= a.ny / 2) return;
  int ci[kC], cj[kC];
  ci[0] = i;
  cj[0] = j;
#pragma unroll
  for (int r = 1; r < kC; ++r) {
    if (kC == 2) {
      ci[r] = a.nx - 1 - ci[r - 1];
      cj[r] = a.ny - 1 - cj[r - 1];
    } else if (sense > 0) {
      ci[r] = a.nx - 1 - cj[r - 1];
      cj[r] = ci[r - 1];
    } else {
      ci[r] = cj[r - 1];
      cj[r] = a.nx - 1 - ci[r - 1];
    }
  }
  float xs[kC], ys[kC];
#pragma unroll
  for (int r = 0; r < kC; ++r) {
    xs[r] = a.ox + ci[r] * a.vx;
    ys[r] = a.oy + cj[r] * a.vy;
  }
  const float z0 = a.oz + kb * a.vz, dz = a.vz;
  float acc[kC][kZ];
#pragma unroll
  for (int r = 0; r < kC; ++r)
#pragma unroll
    for (int q = 0; q < kZ; ++q) acc[r][q] = 0.0f;
  for (int n = 0; n < count; ++n) {
    const float* p = b.v + 12 * n;
    const int layer = first + n;
    column<kC, kZ, kInv, 0>(acc, p, tex, layer, xs[0], ys[0], z0, dz);
    column<kC, kZ, kInv, 1>(acc, p, tex, layer, xs[1], ys[1], z0, dz);
    if constexpr (kC == 4) {
      column<kC, kZ, kInv, 2>(acc, p, tex, layer, xs[2], ys[2], z0, dz);
      column<kC, kZ, kInv, 3>(acc, p, tex, layer, xs[3], ys[3], z0, dz);
    }
  }
#pragma unroll
  for (int r = 0; r < kC; ++r)
#pragma unroll
    for (int q = 0; q < kZ; ++q)
      if (kb + q < a.nz) {
        float* o = a.x + (static_cast<size_t>(kb + q) * a.ny + cj[r]) * a.nx + ci[r];
        *o = acc[r][q] + (first > 0 ? *o : 0.0f);
      }
}

template <int kC, int kZ, bool kInv>
void gather(const Variant& v, const Inputs& in, const Args& a, cudaStream_t s) {
  const int step = in.views / kC;
  const int di = kC == 2 ? a.nx : a.nx / 2, dj = a.ny / 2;
  const dim3 block(v.bx, v.by), grid((di + v.bx - 1) / v.bx, (dj + v.by - 1) / v.by, (a.nz + kZ - 1) / kZ);
  for (int n0 = 0; n0 < step; n0 += 64) {
    const int c = step - n0 < 64 ? step - n0 : 64;
    ViewBlock<64> b;
    for (int k = 0; k < c; ++k) {
      const float* m = in.mats + 12 * (n0 + k);
      for (int e = 0; e < 4; ++e) {  // texel centres, as the product
        b.v[12 * k + e] = m[e] + 0.5f * m[8 + e];
        b.v[12 * k + 4 + e] = m[4 + e] + 0.5f * m[8 + e];
        b.v[12 * k + 8 + e] = m[8 + e];
      }
    }
    sym_kernel<kC, kZ, kInv><<<grid, block, 0, s>>>(a, g_packed.tex, in.quarter_sense, n0, b, c);
    TOMO_CUDA_CHECK_LAST();
  }
}

template <int kC, bool kHalf>
void pack(const Inputs& in, const float* inv_c2, cudaStream_t s) {
  const int step = in.views / kC;
  const dim3 block(32, 8), grid((in.sx + 31) / 32, (in.sy + 7) / 8, step);
  pack_kernel<kC, kHalf><<<grid, block, 0, s>>>(in.y, in.weights, inv_c2, in.sx, in.sy, step, g_packed.surf);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace

bool run_sym(const Variant& v, const Inputs& in, const Args& a, cudaStream_t s) {
  const bool half = v.texel == Texel::half;
  if (v.sym == 2 && !in.half_turn) return false;
  if (v.sym == 4 && in.quarter_sense == 0) return false;
  if ((v.sym != 2 && v.sym != 4) || (v.texel != Texel::half && v.texel != Texel::f32)) return false;
  const bool inv = v.zmode == ZMode::invariant;
  if (inv && !z_invariant(in.mats, in.views)) return false;
  ensure(in.sx, in.sy, in.views / v.sym, v.sym, half);
  if (v.sym == 2) {
    if (half)
      pack<2, true>(in, in.half_inv_c2, s);
    else
      pack<2, false>(in, in.half_inv_c2, s);
  } else {
    if (half)
      pack<4, true>(in, in.quarter_inv_c2, s);
    else
      pack<4, false>(in, in.quarter_inv_c2, s);
  }
#define TOMO_SYM_CASE(C, KZ, INV)                      \
  if (v.sym == C && v.kz == KZ && inv == INV) {        \
    gather<C, KZ, INV>(v, in, a, s);                   \
    return true;                                       \
  }
  TOMO_SYM_CASE(2, 16, false)
  TOMO_SYM_CASE(2, 16, true)
  TOMO_SYM_CASE(2, 8, false)
  TOMO_SYM_CASE(4, 16, false)
  TOMO_SYM_CASE(4, 16, true)
  TOMO_SYM_CASE(4, 8, false)
  TOMO_SYM_CASE(4, 8, true)
#undef TOMO_SYM_CASE
  return false;
}

}  // namespace tomo::bench::fdk_b
