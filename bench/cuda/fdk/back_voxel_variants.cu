// Candidate kernels of B (see back_voxel_variants.hpp). The texture path is the product's
// (cuda/fdk/projector_kernels.cu: the texel-centre shift folded into the matrices); the load path
// reads a copy of the weighted detector with a one-pixel zero border, so that the taps of every
// u in [−1, sx) and v in [−1, sy) are in bounds and read what the texture's border mode reads.
#include "bench/cuda/fdk/back_voxel_variants.hpp"

#include <cuda_runtime.h>

#include <type_traits>

#include "bench/cuda/fdk/back_voxel_args.hpp"
#include "bench/cuda/fdk/back_voxel_gather.hpp"
#include "bench/cuda/fdk/back_voxel_hybrid.hpp"
#include "bench/cuda/fdk/back_voxel_narrow.hpp"
#include "bench/cuda/fdk/back_voxel_sym.hpp"
#include "bench/cuda/fdk/back_voxel_tiled.hpp"
#include "cuda/core/check.hpp"
#include "cuda/fdk/voxel_back_kernels.hpp"

namespace tomo::bench::fdk_b {
namespace {

namespace cd = tomo::fdk::cuda_detail;

struct NoBlock {};
__constant__ float c_mats[12 * kMaxAll];

template <class B>
__device__ __forceinline__ const float* matrix_of(const B& b, int first, int n) {
  if constexpr (std::is_same_v<B, NoBlock>)
    return c_mats + 12 * (first + n);
  else
    return b.v + 12 * n;
}

// Bilinear from the zero-bordered copy at padded coordinates (pc, pr) = (u + 1, v + 1), fp32
// weights; 0 where a tap would leave the border.
__device__ __forceinline__ float ldg_bilinear(const float* __restrict__ img, const Args& a, float pc, float pr) {
  const float fu = floorf(pc), fv = floorf(pr);
  const float au = pc - fu, av = pr - fv;
  const int iu = static_cast<int>(fu), iv = static_cast<int>(fv);
  if (static_cast<unsigned>(iu) > static_cast<unsigned>(a.sx) || static_cast<unsigned>(iv) > static_cast<unsigned>(a.sy))
    return 0.0f;
  const float* r = img + iv * a.W + iu;
  const float t00 = __ldg(r), t10 = __ldg(r + 1), t01 = __ldg(r + a.W), t11 = __ldg(r + a.W + 1);
  const float lo = fmaf(au, t10 - t00, t00), hi = fmaf(au, t11 - t01, t01);
  return fmaf(av, hi - lo, lo);
}

template <int kEvery>
__device__ __forceinline__ constexpr bool by_loads(int q) {
  return kEvery == 1 || (kEvery > 1 && q % kEvery == kEvery - 1);
}

// One thread per (x, y) and kZ consecutive z-voxels, as the product. Matrices: texel-centre
// coordinates (u + 0.5, v + 0.5) as the product's hardware path; the loads add 0.5 more.
template <int kEvery, int kZ, ZMode kM, class B>
__global__ void __launch_bounds__(256) gather_kernel(const Args a, cudaTextureObject_t tex, int first,
                                                     const __grid_constant__ B b, int count) {
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
    const float* p = matrix_of(b, first, n);
    const int layer = first + n;
    const float* img = a.pad + static_cast<size_t>(layer) * a.W * a.H;
    if constexpr (kM == ZMode::invariant) {
      const float t = fmaf(p[8], x, fmaf(p[9], y, p[11]));  // every voxel in front (host-checked)
      const float rt = __fdividef(1.0f, t), w = rt * rt;
      const float uc = fmaf(p[0], x, fmaf(p[1], y, p[3])) * rt;
      const float v0 = fmaf(p[4], x, fmaf(p[5], y, fmaf(p[6], z0, p[7]))) * rt;
      const float dv = p[6] * dz * rt;
      const float pc = uc + 0.5f, fu = floorf(pc), au = pc - fu;
      const int iu = static_cast<int>(fu);
      const bool u_ok = static_cast<unsigned>(iu) <= static_cast<unsigned>(a.sx);
      const float* col = img + (u_ok ? iu : 0);
#pragma unroll
      for (int q = 0; q < kZ; ++q) {
        const float v = fmaf(static_cast<float>(q), dv, v0);
        float s;
        if (by_loads<kEvery>(q))  // folded once the loop is unrolled
          s = ldg_column(col, au, u_ok, a, v + 0.5f);
        else
          s = tex2DLayered<float>(tex, uc, v, layer);
        acc[q] = fmaf(w, s, acc[q]);
      }
    } else {
      const float nu0 = fmaf(p[0], x, fmaf(p[1], y, fmaf(p[2], z0, p[3])));
      const float nv0 = fmaf(p[4], x, fmaf(p[5], y, fmaf(p[6], z0, p[7])));
      const float t0 = fmaf(p[8], x, fmaf(p[9], y, fmaf(p[10], z0, p[11])));
      const float su = p[2] * dz, sv = p[6] * dz, st = p[10] * dz;
      float rt = __fdividef(1.0f, t0);
#pragma unroll
      for (int q = 0; q < kZ; ++q) {
        const float fq = static_cast<float>(q);
        const float nu = fmaf(fq, su, nu0), nv = fmaf(fq, sv, nv0), t = fmaf(fq, st, t0);
        if constexpr (kM == ZMode::newton) {
          if (q > 0) rt = fmaf(rt, fmaf(-t, rt, 1.0f), rt);  // one Newton step from the previous voxel's
        } else {
          rt = __fdividef(1.0f, t);
        }
        const float u = nu * rt, v = nv * rt;
        float s;
        if (by_loads<kEvery>(q))  // folded once the loop is unrolled
          s = ldg_bilinear(img, a, u + 0.5f, v + 0.5f);
        else
          s = tex2DLayered<float>(tex, u, v, layer);
        acc[q] = fmaf(rt * rt, s, acc[q]);
      }
    }
  }
#pragma unroll
  for (int q = 0; q < kZ; ++q)
    if (kb + q < a.nz) a.x[(static_cast<size_t>(kb + q) * a.ny + j) * a.nx + i] = acc[q] +
                                 (first > 0 ? a.x[(static_cast<size_t>(kb + q) * a.ny + j) * a.nx + i] : 0.0f);
}


__global__ void weight_padded_kernel(const float* y, const float* weights, int sx, int sy, float* padded) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int k = blockIdx.z;
  if (i >= sx || j >= sy) return;
  const float* w = weights + cd::kPixelWeightFloats * k;  // as the product's weight_layers_kernel
  const float fi = static_cast<float>(i), fj = static_cast<float>(j);
  const float a = fmaf(w[0], fi, fmaf(w[3], fj, w[6]));
  const float b = fmaf(w[1], fi, fmaf(w[4], fj, w[7]));
  const float c = fmaf(w[2], fi, fmaf(w[5], fj, w[8]));
  const float rho = sqrtf(fmaf(a, a, fmaf(b, b, c * c)));
  const size_t W = sx + 2, H = sy + 2;
  padded[(k * H + j + 1) * W + i + 1] = y[(static_cast<size_t>(k) * sy + j) * sx + i] * (w[9] * rho);
}

__global__ void synthetic_kernel(float* y, int sx, int sy) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int k = blockIdx.z;
  if (i >= sx || j >= sy) return;
  unsigned h = (static_cast<unsigned>(i) * 73856093u) ^ (static_cast<unsigned>(j) * 19349663u) ^
               (static_cast<unsigned>(k) * 83492791u);
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  const float noise = static_cast<float>(h & 0xffffu) / 65536.0f;
  y[(static_cast<size_t>(k) * sy + j) * sx + i] =
      1.0f + 0.5f * __sinf(0.013f * i + 0.021f * j + 0.1f * k) + 0.2f * noise;
}

template <int kEvery, int kZ, ZMode kM>
void launch_all(const Variant& v, const Inputs& in, const Args& a, cudaStream_t s) {
  const dim3 block(v.bx, v.by), grid((a.nx + v.bx - 1) / v.bx, (a.ny + v.by - 1) / v.by, (a.nz + kZ - 1) / kZ);
  const bool hw_shift = true;  // texel centres folded in (loads add 0.5 more)
  auto fill = [&](float* o, int n0, int c) {
    for (int k = 0; k < c; ++k) {
      const float* m = in.mats + 12 * (n0 + k);
      for (int e = 0; e < 12; ++e) o[12 * k + e] = m[e];
      if (hw_shift)
        for (int e = 0; e < 4; ++e) {
          o[12 * k + e] = m[e] + 0.5f * m[8 + e];
          o[12 * k + 4 + e] = m[4 + e] + 0.5f * m[8 + e];
        }
    }
  };
  auto carve = [&](const void* k) {
    TOMO_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout,
                                         v.l1_max ? int(cudaSharedmemCarveoutMaxL1) : int(cudaSharedmemCarveoutDefault)));
  };
  if (v.mats == Mats::param64) {
    for (int n0 = 0; n0 < in.views; n0 += 64) {
      const int c = in.views - n0 < 64 ? in.views - n0 : 64;
      ViewBlock<64> b;
      fill(b.v, n0, c);
      carve(reinterpret_cast<const void*>(gather_kernel<kEvery, kZ, kM, ViewBlock<64>>));
      gather_kernel<kEvery, kZ, kM, ViewBlock<64>><<<grid, block, 0, s>>>(a, in.tex, n0, b, c);
      TOMO_CUDA_CHECK_LAST();
    }
  } else if (v.mats == Mats::param_all) {
    for (int n0 = 0; n0 < in.views; n0 += kMaxAll) {
      const int c = in.views - n0 < kMaxAll ? in.views - n0 : kMaxAll;
      static ViewBlock<kMaxAll> b;  // 24 KB: not on the stack
      fill(b.v, n0, c);
      carve(reinterpret_cast<const void*>(gather_kernel<kEvery, kZ, kM, ViewBlock<kMaxAll>>));
      gather_kernel<kEvery, kZ, kM, ViewBlock<kMaxAll>><<<grid, block, 0, s>>>(a, in.tex, n0, b, c);
      TOMO_CUDA_CHECK_LAST();
    }
  } else {
    for (int n0 = 0; n0 < in.views; n0 += kMaxAll) {
      const int c = in.views - n0 < kMaxAll ? in.views - n0 : kMaxAll;
      static ViewBlock<kMaxAll> b;
      fill(b.v, 0, 0);
      for (int k = 0; k < c; ++k) fill(b.v + 12 * k, n0 + k, 1);
      // The symbol holds views n0.. at index 0..: launch with first = 0 and offset layers below.
      TOMO_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_mats, b.v, 12 * c * sizeof(float), 0, cudaMemcpyHostToDevice, s));
      TOMO_CUDA_CHECK(cudaStreamSynchronize(s));  // b is reused by the next piece
      carve(reinterpret_cast<const void*>(gather_kernel<kEvery, kZ, kM, NoBlock>));
      gather_kernel<kEvery, kZ, kM, NoBlock><<<grid, block, 0, s>>>(a, in.tex, 0, NoBlock{}, c);
      TOMO_CUDA_CHECK_LAST();
    }
  }
}

}  // namespace

std::vector<Variant> variants() {
  using Z = ZMode;
  using M = Mats;
  using T = Texel;
  std::vector<Variant> out = {
      {"tex z16 general p64 32x4 (product layout)", 0, 16, Z::general, M::param64},
      {"tex z8 general p64", 0, 8, Z::general, M::param64},
      {"tex z32 general p64", 0, 32, Z::general, M::param64},
      {"tex z16 general all-views", 0, 16, Z::general, M::param_all},
      {"tex z16 general constant", 0, 16, Z::general, M::constant},
      {"tex z16 newton all-views", 0, 16, Z::newton, M::param_all},
      {"tex z16 z-invariant all-views", 0, 16, Z::invariant, M::param_all},
      {"tex z32 z-invariant all-views", 0, 32, Z::invariant, M::param_all},
      {"tex z8 z-invariant all-views", 0, 8, Z::invariant, M::param_all},
      {"ldg(exact) z16 general all-views", 1, 16, Z::general, M::param_all},
      {"ldg(exact) z16 z-invariant all-views", 1, 16, Z::invariant, M::param_all},
      {"ldg(exact) z32 z-invariant all-views", 1, 32, Z::invariant, M::param_all},
      {"hybrid 1/2 z16 general all-views", 2, 16, Z::general, M::param_all},
      {"hybrid 1/4 z16 general all-views", 4, 16, Z::general, M::param_all},
      {"hybrid 1/2 z16 z-invariant all-views", 2, 16, Z::invariant, M::param_all},
      {"hybrid 1/3 z16 z-invariant all-views", 3, 16, Z::invariant, M::param_all},
      {"hybrid 1/4 z16 z-invariant all-views", 4, 16, Z::invariant, M::param_all},
      {"hybrid 1/2 z32 z-invariant all-views", 2, 32, Z::invariant, M::param_all},
      {"hybrid 1/4 z32 z-invariant all-views", 4, 32, Z::invariant, M::param_all},
      {"hybrid 1/2 z16 newton all-views", 2, 16, Z::newton, M::param_all},
      {"tiled shared (exact) z16 z-invariant 32x4", 1, 16, Z::invariant, M::param_all, 32, 4, false, true},
      {"tiled shared (exact) z16 z-invariant 32x8", 1, 16, Z::invariant, M::param_all, 32, 8, false, true},
      {"tiled shared (exact) z16 z-invariant 16x8", 1, 16, Z::invariant, M::param_all, 16, 8, false, true},
      {"tiled shared (exact) z16 z-invariant 64x2", 1, 16, Z::invariant, M::param_all, 64, 2, false, true},
      {"tiled shared (exact) z16 z-invariant 64x4", 1, 16, Z::invariant, M::param_all, 64, 4, false, true},
      {"tiled x2 views z16 32x8", 1, 16, Z::invariant, M::param_all, 32, 8, false, true, 2},
      {"tiled x2 views z16 32x8 cap2048", 1, 16, Z::invariant, M::param_all, 32, 8, false, true, 2, false, 2048},
      {"tiled x4 views z16 32x4 cap2048", 1, 16, Z::invariant, M::param_all, 32, 4, false, true, 4, false, 2048},
      {"tiled x1 view z16 32x4 cap2048", 1, 16, Z::invariant, M::param_all, 32, 4, false, true, 1, false, 2048},
      {"tiled x4 views z16 32x8", 1, 16, Z::invariant, M::param_all, 32, 8, false, true, 4},
      {"tiled x4 views z16 32x4", 1, 16, Z::invariant, M::param_all, 32, 4, false, true, 4},
      {"tiled x4 views z16 64x4", 1, 16, Z::invariant, M::param_all, 64, 4, false, true, 4},
      {"tiled pairs x1 view z16 32x8", 1, 16, Z::invariant, M::param_all, 32, 8, false, true, 1, true},
      {"tiled pairs x2 views z16 32x8", 1, 16, Z::invariant, M::param_all, 32, 8, false, true, 2, true},
      {"tiled pairs x4 views z16 32x8", 1, 16, Z::invariant, M::param_all, 32, 8, false, true, 4, true},
      {"tiled pairs x2 views z16 32x4", 1, 16, Z::invariant, M::param_all, 32, 4, false, true, 2, true},
      {"tiled pairs x2 views z16 64x4", 1, 16, Z::invariant, M::param_all, 64, 4, false, true, 2, true},
      {"tex z16 general p64, L1 max", 0, 16, Z::general, M::param64, 32, 4, true},
      {"tex z16 z-invariant all-views, L1 max", 0, 16, Z::invariant, M::param_all, 32, 4, true},
      {"hybrid 1/2 z16 z-invariant all-views, L1 max", 2, 16, Z::invariant, M::param_all, 32, 4, true},
      {"hybrid 1/2 z16 general all-views, L1 max", 2, 16, Z::general, M::param_all, 32, 4, true},
      {.name = "gather rows z16 32x4", .kz = 16, .zmode = Z::invariant, .mats = M::param_all, .gather = true},
      {.name = "gather rows z32 32x4", .kz = 32, .zmode = Z::invariant, .mats = M::param_all, .gather = true},
      {.name = "gather rows z16 32x2", .kz = 16, .zmode = Z::invariant, .mats = M::param_all, .bx = 32, .by = 2,
       .gather = true},
      {.name = "gather rows z32 64x2", .kz = 32, .zmode = Z::invariant, .mats = M::param_all, .bx = 64, .by = 2,
       .gather = true},
      {.name = "gather rows z64 32x4", .kz = 64, .zmode = Z::invariant, .mats = M::param_all, .gather = true},
      {.name = "gather rows z64 64x2", .kz = 64, .zmode = Z::invariant, .mats = M::param_all, .bx = 64, .by = 2,
       .gather = true},
      {.name = "gather each voxel z16 32x4", .kz = 16, .zmode = Z::general, .mats = M::param_all, .gather = true},
      {.name = "gather each voxel z16 32x2", .kz = 16, .zmode = Z::general, .mats = M::param_all, .bx = 32,
       .by = 2, .gather = true},
      {.name = "half texels z16 p64 32x4", .kz = 16, .texel = T::half},
      {.name = "snorm16 texels z16 p64 32x4", .kz = 16, .texel = T::snorm16},
      {.name = "half texels z16 p64 32x2", .kz = 16, .bx = 32, .by = 2, .texel = T::half},
      {.name = "snorm16 texels z16 p64 32x2", .kz = 16, .bx = 32, .by = 2, .texel = T::snorm16},
  };
  for (Variant& v : hybrid_variants()) out.push_back(std::move(v));
  const Z g = Z::general, inv = Z::invariant;
  const Variant sym[] = {
      {.name = "sym2 rg16f z16 general", .kz = 16, .zmode = g, .texel = T::half, .sym = 2},
      {.name = "sym2 rg16f z16 z-invariant", .kz = 16, .zmode = inv, .texel = T::half, .sym = 2},
      {.name = "sym2 rg16f z8 general", .kz = 8, .zmode = g, .texel = T::half, .sym = 2},
      {.name = "sym2 rg16f z8 z-invariant", .kz = 8, .zmode = inv, .texel = T::half, .sym = 2},
      {.name = "sym2 rg16f z8 z-invariant 8x16", .kz = 8, .zmode = inv, .bx = 8, .by = 16, .texel = T::half, .sym = 2},
      {.name = "sym2 rg16f z8 z-invariant 16x8", .kz = 8, .zmode = inv, .bx = 16, .by = 8, .texel = T::half, .sym = 2},
      {.name = "sym2 rg16f z8 general 8x16", .kz = 8, .zmode = g, .bx = 8, .by = 16, .texel = T::half, .sym = 2},
      {.name = "sym2 rg32f z16 general", .kz = 16, .zmode = g, .texel = T::f32, .sym = 2},
      {.name = "sym2 rg32f z16 z-invariant", .kz = 16, .zmode = inv, .texel = T::f32, .sym = 2},
      {.name = "sym4 rgba16f z16 general", .kz = 16, .zmode = g, .texel = T::half, .sym = 4},
      {.name = "sym4 rgba16f z16 z-invariant", .kz = 16, .zmode = inv, .texel = T::half, .sym = 4},
      {.name = "sym4 rgba16f z8 general", .kz = 8, .zmode = g, .texel = T::half, .sym = 4},
      {.name = "sym4 rgba16f z8 z-invariant", .kz = 8, .zmode = inv, .texel = T::half, .sym = 4},
      {.name = "sym4 rgba32f z16 general", .kz = 16, .zmode = g, .texel = T::f32, .sym = 4},
      {.name = "sym4 rgba32f z8 general", .kz = 8, .zmode = g, .texel = T::f32, .sym = 4},
  };
  for (const Variant& v : sym) out.push_back(v);
  return out;
}

std::vector<Variant> block_sweep(const Variant& v) {
  std::vector<Variant> out;
  const unsigned shapes[][2] = {{32, 8}, {16, 8}, {16, 16}, {64, 2}, {64, 4}, {8, 16}, {32, 2}};
  for (const auto& sh : shapes) {
    Variant w = v;
    w.bx = sh[0];
    w.by = sh[1];
    w.name = v.name + " " + std::to_string(sh[0]) + "x" + std::to_string(sh[1]);
    out.push_back(w);
  }
  return out;
}

bool z_invariant(const float* mats, int views) {
  for (int n = 0; n < views; ++n)
    if (mats[12 * n + 2] != 0.0f || mats[12 * n + 10] != 0.0f) return false;
  return true;
}

void synthetic_stack(float* y, int views, int sx, int sy, cudaStream_t s) {
  const dim3 block(32, 8), grid((sx + 31) / 32, (sy + 7) / 8, views);
  synthetic_kernel<<<grid, block, 0, s>>>(y, sx, sy);
  TOMO_CUDA_CHECK_LAST();
}

void clear_padded(const Inputs& in, cudaStream_t s) {
  const size_t n = static_cast<size_t>(in.sx + 2) * (in.sy + 2) * in.views;
  TOMO_CUDA_CHECK(cudaMemsetAsync(in.padded, 0, n * sizeof(float), s));
}

bool run_variant(const Variant& v, const Inputs& in, cudaStream_t s) {
  if (v.zmode == ZMode::invariant && !z_invariant(in.mats, in.views)) return false;
  if (v.needs_texture())
    cd::launch_weight_layers(in.y, in.view_ids, in.weights, in.views, in.sx, in.sy, cd::Sampling::hardware, in.surface,
                             nullptr, s);
  if (v.needs_padded()) {
    const dim3 block(32, 8), grid((in.sx + 31) / 32, (in.sy + 7) / 8, in.views);
    weight_padded_kernel<<<grid, block, 0, s>>>(in.y, in.weights, in.sx, in.sy, in.padded);
    TOMO_CUDA_CHECK_LAST();
  }
  const Args a{in.x,        in.nx,       in.ny,       in.nz, in.origin[0], in.origin[1], in.origin[2], in.voxel[0],
               in.voxel[1], in.voxel[2], in.padded,   in.sx + 2, in.sy + 2, in.sx, in.sy};
  if (v.sym != 0) return run_sym(v, in, a, s);
  if (v.tiled) return run_tiled(v, a, in.mats, in.views, s);
  if (v.gather) return run_gather(v, a, in.tex, in.mats, in.views, s);
  if (v.narrow()) return run_narrow(v, in, a, s);
  if (v.hybrid()) return v.zmode == ZMode::invariant && run_hybrid(v, in, a, s);
  using Z = ZMode;
#define TOMO_B_CASE(E, KZ, M)                                                   \
  if (v.ldg_every == E && v.kz == KZ && v.zmode == M) {                         \
    launch_all<E, KZ, M>(v, in, a, s);                                          \
    return true;                                                                \
  }
  TOMO_B_CASE(0, 16, Z::general)
  TOMO_B_CASE(0, 8, Z::general)
  TOMO_B_CASE(0, 32, Z::general)
  TOMO_B_CASE(0, 16, Z::newton)
  TOMO_B_CASE(0, 16, Z::invariant)
  TOMO_B_CASE(0, 32, Z::invariant)
  TOMO_B_CASE(0, 8, Z::invariant)
  TOMO_B_CASE(1, 16, Z::general)
  TOMO_B_CASE(1, 16, Z::invariant)
  TOMO_B_CASE(1, 32, Z::invariant)
  TOMO_B_CASE(2, 16, Z::general)
  TOMO_B_CASE(4, 16, Z::general)
  TOMO_B_CASE(2, 16, Z::invariant)
  TOMO_B_CASE(3, 16, Z::invariant)
  TOMO_B_CASE(4, 16, Z::invariant)
  TOMO_B_CASE(2, 32, Z::invariant)
  TOMO_B_CASE(4, 32, Z::invariant)
  TOMO_B_CASE(2, 16, Z::newton)
#undef TOMO_B_CASE
  return false;
}

}  // namespace tomo::bench::fdk_b
