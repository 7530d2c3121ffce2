// The hybrid candidates of B (see back_voxel_hybrid.hpp).
#include "bench/cuda/fdk/back_voxel_hybrid.hpp"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "cuda/core/check.hpp"

namespace tomo::bench::fdk_b {
namespace {

// Packed copies of the zero-bordered weighted detector P ((sx + 2)·(sy + 2) a layer), made on
// first use and remade when the stack's size or the kind changes:
//   quad / tex4: Q[r][c] = (P[r][c], P[r][c+1], P[r+1][c], P[r+1][c+1]), r ≤ sy, c ≤ sx
//   quadh:       the same four as half floats in 8 bytes
//   pair:        R[r][c] = (P[r][c], P[r][c+1]),                          r ≤ sy + 1, c ≤ sx
struct Packed {
  void* buf = nullptr;
  cudaArray_t array = nullptr;
  cudaSurfaceObject_t surf = 0;
  cudaTextureObject_t tex = 0;
  int sx = 0, sy = 0, views = 0;
  Soft kind = Soft::none;
};
Packed g_packed;

void release() {
  if (g_packed.tex) TOMO_CUDA_CHECK(cudaDestroyTextureObject(g_packed.tex));
  if (g_packed.surf) TOMO_CUDA_CHECK(cudaDestroySurfaceObject(g_packed.surf));
  if (g_packed.array) TOMO_CUDA_CHECK(cudaFreeArray(g_packed.array));
  if (g_packed.buf) TOMO_CUDA_CHECK(cudaFree(g_packed.buf));
  g_packed = Packed{};
}

void ensure(const Inputs& in, Soft kind) {
  if (g_packed.sx == in.sx && g_packed.sy == in.sy && g_packed.views == in.views && g_packed.kind == kind) return;
  release();
  const size_t cols = in.sx + 1;
  if (kind == Soft::quad)
    TOMO_CUDA_CHECK(cudaMalloc(&g_packed.buf, sizeof(float4) * cols * (in.sy + 1) * in.views));
  if (kind == Soft::pair)
    TOMO_CUDA_CHECK(cudaMalloc(&g_packed.buf, sizeof(float2) * cols * (in.sy + 2) * in.views));
  if (kind == Soft::quadh)
    TOMO_CUDA_CHECK(cudaMalloc(&g_packed.buf, sizeof(uint2) * cols * (in.sy + 1) * in.views));
  if (kind == Soft::tex4) {
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<float4>();
    TOMO_CUDA_CHECK(cudaMalloc3DArray(&g_packed.array, &desc, make_cudaExtent(cols, in.sy + 1, in.views),
                                      cudaArrayLayered | cudaArraySurfaceLoadStore));
    cudaResourceDesc res{};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = g_packed.array;
    TOMO_CUDA_CHECK(cudaCreateSurfaceObject(&g_packed.surf, &res));
    cudaTextureDesc td{};
    td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeBorder;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = 0;
    TOMO_CUDA_CHECK(cudaCreateTextureObject(&g_packed.tex, &res, &td, nullptr));
  }
  g_packed.sx = in.sx;
  g_packed.sy = in.sy;
  g_packed.views = in.views;
  g_packed.kind = kind;
}

template <Soft kS>
__global__ void pack_kernel(const float* __restrict__ padded, int sx, int sy, void* out, cudaSurfaceObject_t surf) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  const int k = blockIdx.z;
  const int rows = kS == Soft::pair ? sy + 2 : sy + 1;
  if (c > sx || r >= rows) return;
  const size_t W = sx + 2, H = sy + 2, C = sx + 1;
  const float* p = padded + (k * H + r) * W + c;
  if constexpr (kS == Soft::pair) {
    static_cast<float2*>(out)[(k * static_cast<size_t>(rows) + r) * C + c] = make_float2(p[0], p[1]);
  } else {
    const float4 q = make_float4(p[0], p[1], p[W], p[W + 1]);
    if constexpr (kS == Soft::quad) {
      static_cast<float4*>(out)[(k * static_cast<size_t>(rows) + r) * C + c] = q;
    } else if constexpr (kS == Soft::quadh) {
      const __half2 lo = __floats2half2_rn(q.x, q.y), hi = __floats2half2_rn(q.z, q.w);
      static_cast<uint2*>(out)[(k * static_cast<size_t>(rows) + r) * C + c] =
          make_uint2(*reinterpret_cast<const unsigned*>(&lo), *reinterpret_cast<const unsigned*>(&hi));
    } else {
      surf2DLayeredwrite(q, surf, c * static_cast<int>(sizeof(float4)), r, k);
    }
  }
}

__device__ __forceinline__ float lerp2(float au, float av, float t00, float t10, float t01, float t11) {
  const float lo = fmaf(au, t10 - t00, t00), hi = fmaf(au, t11 - t01, t01);
  return fmaf(av, hi - lo, lo);
}

// Z-voxel q of a texture warp is sampled in software: every kEvery-th (kEvery 0: none).
template <int kEvery>
__device__ __forceinline__ constexpr bool every(int q) {
  if constexpr (kEvery > 0)
    return q % kEvery == kEvery - 1;
  else
    return false;
}

struct Sources {
  const float* pad;   // ldg4
  const void* packed; // quad, pair
  cudaTextureObject_t tex4;
};

// A z-invariant column of kZ voxels by the software path: u (so the tap column iu and weight au)
// per thread-view, v = v0 + q·dv (bordered pixel coordinates). Out-of-range samples are 0.
template <Soft kS, int kZ, int kEvery>
__device__ __forceinline__ void soft_column(float (&acc)[kZ], const Args& a, const Sources& src, int layer, float pc,
                                            float pv0, float dv, float w, bool all) {
  const float fu = floorf(pc), au = pc - fu;
  const int iu = static_cast<int>(fu);
  const bool u_ok = static_cast<unsigned>(iu) <= static_cast<unsigned>(a.sx);
  const int C = a.sx + 1;
  [[maybe_unused]] int piv = -4;
  [[maybe_unused]] float2 plo{0, 0}, phi{0, 0};
#pragma unroll
  for (int q = 0; q < kZ; ++q) {
    if (!all && !every<kEvery>(q)) continue;  // folded once unrolled
    const float pr = fmaf(static_cast<float>(q), dv, pv0);
    const float fv = floorf(pr), av = pr - fv;
    const int iv = static_cast<int>(fv);
    float s = 0.0f;
    if constexpr (kS == Soft::tex4) {
      // Point sampling picks texel (⌊pc⌋, ⌊pr⌋); the border mode gives 0 outside, as the others.
      const float4 t = tex2DLayered<float4>(src.tex4, pc, pr, layer);
      s = lerp2(au, av, t.x, t.y, t.z, t.w);
    } else {
      const bool ok = u_ok && static_cast<unsigned>(iv) <= static_cast<unsigned>(a.sy);
      if constexpr (kS == Soft::ldg4) {
        if (ok) {
          const float* r = src.pad + static_cast<size_t>(layer) * a.W * a.H + iv * a.W + iu;
          s = lerp2(au, av, __ldg(r), __ldg(r + 1), __ldg(r + a.W), __ldg(r + a.W + 1));
        }
      } else if constexpr (kS == Soft::quad) {
        if (ok) {
          const float4* base = static_cast<const float4*>(src.packed) + static_cast<size_t>(layer) * C * (a.sy + 1);
          const float4 t = __ldg(base + iv * C + iu);
          s = lerp2(au, av, t.x, t.y, t.z, t.w);
        }
      } else if constexpr (kS == Soft::quadh) {
        if (ok) {
          const uint2* base = static_cast<const uint2*>(src.packed) + static_cast<size_t>(layer) * C * (a.sy + 1);
          const uint2 t = __ldg(base + iv * C + iu);
          const float2 lo = __half22float2(*reinterpret_cast<const __half2*>(&t.x));
          const float2 hi = __half22float2(*reinterpret_cast<const __half2*>(&t.y));
          s = lerp2(au, av, lo.x, lo.y, hi.x, hi.y);
        }
      } else {  // pair: reuse the previous voxel's rows where they are this voxel's
        const float2* base = static_cast<const float2*>(src.packed) + static_cast<size_t>(layer) * C * (a.sy + 2);
        const float2* col = base + (u_ok ? iu : 0);
        const int ivc = ok ? iv : 0;
        float2 lo, hi;
        if (ivc == piv + 1) {
          lo = phi;
          hi = __ldg(col + (ivc + 1) * C);
        } else if (ivc == piv) {
          lo = plo;
          hi = phi;
        } else {
          lo = __ldg(col + ivc * C);
          hi = __ldg(col + (ivc + 1) * C);
        }
        piv = ivc;
        plo = lo;
        phi = hi;
        s = ok ? lerp2(au, av, lo.x, lo.y, hi.x, hi.y) : 0.0f;
      }
    }
    acc[q] = fmaf(w, s, acc[q]);
  }
}

// Block 32×8 (8 warps). Warp w < soft_warps samples every voxel in software; the others sample
// by the filtered texture except every kEvery-th z-voxel (kEvery 0: none). kPatch: warp w covers
// the 8×4 patch (8·(w mod 4), 4·(w div 4)) of the block's 32×8 tile.
template <Soft kS, int kEvery, bool kPatch, int kN>
__global__ void __launch_bounds__(256) hybrid_kernel(const Args a, cudaTextureObject_t tex, Sources src, int first,
                                                     const __grid_constant__ ViewBlock<kN> b, int count,
                                                     int soft_warps) {
  constexpr int kZ = 16;
  const int t = threadIdx.y * blockDim.x + threadIdx.x, warp = t >> 5, lane = t & 31;
  int i, j;
  if constexpr (kPatch) {
    i = blockIdx.x * 32 + 8 * (warp & 3) + (lane & 7);
    j = blockIdx.y * 8 + 4 * (warp >> 2) + (lane >> 3);
  } else {
    i = blockIdx.x * blockDim.x + threadIdx.x;
    j = blockIdx.y * blockDim.y + threadIdx.y;
  }
  const int kb = blockIdx.z * kZ;
  if (i >= a.nx || j >= a.ny) return;
  const bool soft = warp < soft_warps;  // warp-uniform
  const float x = a.ox + i * a.vx, y = a.oy + j * a.vy;
  const float z0 = a.oz + kb * a.vz, dz = a.vz;
  float acc[kZ];
#pragma unroll
  for (int q = 0; q < kZ; ++q) acc[q] = 0.0f;
  for (int n = 0; n < count; ++n) {
    const float* p = b.v + 12 * n;
    const int layer = first + n;
    const float tt = fmaf(p[8], x, fmaf(p[9], y, p[11]));  // every voxel in front (host-checked)
    const float rt = __fdividef(1.0f, tt), w = rt * rt;
    const float uc = fmaf(p[0], x, fmaf(p[1], y, p[3])) * rt;
    const float v0 = fmaf(p[4], x, fmaf(p[5], y, fmaf(p[6], z0, p[7]))) * rt;
    const float dv = p[6] * dz * rt;
    if (soft) {
      soft_column<kS, kZ, kEvery>(acc, a, src, layer, uc + 0.5f, v0 + 0.5f, dv, w, true);
    } else {
#pragma unroll
      for (int q = 0; q < kZ; ++q)
        if (!every<kEvery>(q))
          acc[q] = fmaf(w, tex2DLayered<float>(tex, uc, fmaf(static_cast<float>(q), dv, v0), layer), acc[q]);
      if constexpr (kEvery > 0) soft_column<kS, kZ, kEvery>(acc, a, src, layer, uc + 0.5f, v0 + 0.5f, dv, w, false);
    }
  }
#pragma unroll
  for (int q = 0; q < kZ; ++q)
    if (kb + q < a.nz) {
      float* o = a.x + (static_cast<size_t>(kb + q) * a.ny + j) * a.nx + i;
      *o = acc[q] + (first > 0 ? *o : 0.0f);
    }
}

// kN views a launch: every view (kMaxAll) or 64, as the product's launches.
template <Soft kS, int kEvery, bool kPatch, int kN>
void launch(const Variant& v, const Inputs& in, const Args& a, const Sources& src, cudaStream_t s) {
  const dim3 block(32, 8), grid((a.nx + 31) / 32, (a.ny + 7) / 8, (a.nz + 15) / 16);
  static ViewBlock<kN> b;  // up to 24 KB: not on the stack
  for (int n0 = 0; n0 < in.views; n0 += kN) {
    const int c = in.views - n0 < kN ? in.views - n0 : kN;
    for (int k = 0; k < c; ++k) {
      const float* m = in.mats + 12 * (n0 + k);
      for (int e = 0; e < 12; ++e) b.v[12 * k + e] = m[e];
      for (int e = 0; e < 4; ++e) {  // texel centres, as the product
        b.v[12 * k + e] = m[e] + 0.5f * m[8 + e];
        b.v[12 * k + 4 + e] = m[4 + e] + 0.5f * m[8 + e];
      }
    }
    hybrid_kernel<kS, kEvery, kPatch, kN><<<grid, block, 0, s>>>(a, in.tex, src, n0, b, c, v.soft_warps);
    TOMO_CUDA_CHECK_LAST();
  }
}

template <Soft kS>
bool dispatch(const Variant& v, const Inputs& in, const Args& a, const Sources& src, cudaStream_t s) {
#define TOMO_H_CASE(E, P, M, N)                                     \
  if (v.ldg_every == E && v.patch == P && v.mats == M) {            \
    launch<kS, E, P, N>(v, in, a, src, s);                          \
    return true;                                                    \
  }
  TOMO_H_CASE(0, false, Mats::param_all, kMaxAll)
  TOMO_H_CASE(0, true, Mats::param_all, kMaxAll)
  TOMO_H_CASE(4, false, Mats::param_all, kMaxAll)
  TOMO_H_CASE(8, false, Mats::param_all, kMaxAll)
  TOMO_H_CASE(8, true, Mats::param_all, kMaxAll)
  TOMO_H_CASE(0, false, Mats::param64, 64)
  TOMO_H_CASE(4, false, Mats::param64, 64)
#undef TOMO_H_CASE
  return false;
}

}  // namespace

std::vector<Variant> hybrid_variants() {
  using M = Mats;
  using S = Soft;
  // z-invariant, 16 z-voxels, 32×8: name, sampler, software warps of 8, every k-th z-voxel, patch.
  auto hyb = [](const char* name, Soft soft, int warps, int every, bool patch = false, Mats mats = M::param_all) {
    return Variant{.name = name, .ldg_every = every, .kz = 16, .zmode = ZMode::invariant, .mats = mats, .bx = 32,
                   .by = 8, .soft = soft, .soft_warps = warps, .patch = patch};
  };
  return {
      hyb("hyb p64 tex only 32x8", S::ldg4, 0, 0, false, M::param64),
      hyb("hyb p64 ldg4 1/8 warps", S::ldg4, 1, 0, false, M::param64),
      hyb("hyb p64 ldg4 2/8 warps", S::ldg4, 2, 0, false, M::param64),
      hyb("hyb p64 ldg4 every 4th z", S::ldg4, 0, 4, false, M::param64),
      hyb("hyb p64 quad 1/8 warps", S::quad, 1, 0, false, M::param64),
      hyb("hyb p64 quad 2/8 warps", S::quad, 2, 0, false, M::param64),
      hyb("hyb p64 quad every 4th z", S::quad, 0, 4, false, M::param64),
      hyb("hyb p64 quadh 1/8 warps", S::quadh, 1, 0, false, M::param64),
      hyb("hyb p64 quadh 2/8 warps", S::quadh, 2, 0, false, M::param64),
      hyb("hyb p64 quadh every 4th z", S::quadh, 0, 4, false, M::param64),
      hyb("hyb p64 tex4 1/8 warps", S::tex4, 1, 0, false, M::param64),
      hyb("hyb tex only 32x8 (same kernel, no soft)", S::ldg4, 0, 0),
      hyb("hyb tex only patch 8x4", S::ldg4, 0, 0, true),
      hyb("hyb ldg4 all warps", S::ldg4, 8, 0),
      hyb("hyb ldg4 all warps patch", S::ldg4, 8, 0, true),
      hyb("hyb ldg4 1/8 warps", S::ldg4, 1, 0),
      hyb("hyb ldg4 1/8 warps patch", S::ldg4, 1, 0, true),
      hyb("hyb ldg4 2/8 warps", S::ldg4, 2, 0),
      hyb("hyb ldg4 2/8 warps patch", S::ldg4, 2, 0, true),
      hyb("hyb ldg4 every 8th z", S::ldg4, 0, 8),
      hyb("hyb quad all warps", S::quad, 8, 0),
      hyb("hyb quad all warps patch", S::quad, 8, 0, true),
      hyb("hyb quad 1/8 warps", S::quad, 1, 0),
      hyb("hyb quad 1/8 warps patch", S::quad, 1, 0, true),
      hyb("hyb quad 2/8 warps", S::quad, 2, 0),
      hyb("hyb quad 2/8 warps patch", S::quad, 2, 0, true),
      hyb("hyb quad 3/8 warps", S::quad, 3, 0),
      hyb("hyb quad 3/8 warps patch", S::quad, 3, 0, true),
      hyb("hyb quad every 8th z", S::quad, 0, 8),
      hyb("hyb quad every 8th z patch", S::quad, 0, 8, true),
      hyb("hyb quad every 4th z", S::quad, 0, 4),
      hyb("hyb quadh all warps", S::quadh, 8, 0),
      hyb("hyb quadh all warps patch", S::quadh, 8, 0, true),
      hyb("hyb quadh 1/8 warps", S::quadh, 1, 0),
      hyb("hyb quadh 1/8 warps patch", S::quadh, 1, 0, true),
      hyb("hyb quadh 2/8 warps", S::quadh, 2, 0),
      hyb("hyb quadh 2/8 warps patch", S::quadh, 2, 0, true),
      hyb("hyb quadh 3/8 warps", S::quadh, 3, 0),
      hyb("hyb quadh 3/8 warps patch", S::quadh, 3, 0, true),
      hyb("hyb quadh every 8th z", S::quadh, 0, 8),
      hyb("hyb quadh every 4th z", S::quadh, 0, 4),
      hyb("hyb pair all warps", S::pair, 8, 0),
      hyb("hyb pair all warps patch", S::pair, 8, 0, true),
      hyb("hyb pair 1/8 warps", S::pair, 1, 0),
      hyb("hyb pair 1/8 warps patch", S::pair, 1, 0, true),
      hyb("hyb pair 2/8 warps", S::pair, 2, 0),
      hyb("hyb pair 2/8 warps patch", S::pair, 2, 0, true),
      hyb("hyb tex4 all warps", S::tex4, 8, 0),
      hyb("hyb tex4 all warps patch", S::tex4, 8, 0, true),
      hyb("hyb tex4 1/8 warps", S::tex4, 1, 0),
      hyb("hyb tex4 1/8 warps patch", S::tex4, 1, 0, true),
      hyb("hyb tex4 2/8 warps", S::tex4, 2, 0),
      hyb("hyb tex4 2/8 warps patch", S::tex4, 2, 0, true),
  };
}

bool run_hybrid(const Variant& v, const Inputs& in, const Args& a, cudaStream_t s) {
  if (v.kz != 16 || v.bx != 32 || v.by != 8) return false;
  Sources src{in.padded, nullptr, 0};
  if (v.soft != Soft::ldg4) {
    ensure(in, v.soft);
    const int rows = v.soft == Soft::pair ? in.sy + 2 : in.sy + 1;
    const dim3 pb(32, 8), pg((in.sx + 1 + 31) / 32, (rows + 7) / 8, in.views);
    if (v.soft == Soft::quad)
      pack_kernel<Soft::quad><<<pg, pb, 0, s>>>(in.padded, in.sx, in.sy, g_packed.buf, 0);
    else if (v.soft == Soft::quadh)
      pack_kernel<Soft::quadh><<<pg, pb, 0, s>>>(in.padded, in.sx, in.sy, g_packed.buf, 0);
    else if (v.soft == Soft::pair)
      pack_kernel<Soft::pair><<<pg, pb, 0, s>>>(in.padded, in.sx, in.sy, g_packed.buf, 0);
    else
      pack_kernel<Soft::tex4><<<pg, pb, 0, s>>>(in.padded, in.sx, in.sy, nullptr, g_packed.surf);
    TOMO_CUDA_CHECK_LAST();
    src.packed = g_packed.buf;
    src.tex4 = g_packed.tex;
  }
  switch (v.soft) {
    case Soft::ldg4: return dispatch<Soft::ldg4>(v, in, a, src, s);
    case Soft::quad: return dispatch<Soft::quad>(v, in, a, src, s);
    case Soft::quadh: return dispatch<Soft::quadh>(v, in, a, src, s);
    case Soft::pair: return dispatch<Soft::pair>(v, in, a, src, s);
    case Soft::tex4: return dispatch<Soft::tex4>(v, in, a, src, s);
    default: return false;
  }
}

}  // namespace tomo::bench::fdk_b
