// Candidate kernels of B (see back_voxel_variants.hpp). The texture path is the product's
// (cuda/fdk/projector_kernels.cu: the texel-centre shift folded into the matrices); the load path
// reads a copy of the weighted detector with a one-pixel zero border, so that the taps of every
// u in [−1, sx) and v in [−1, sy) are in bounds and read what the texture's border mode reads.
#include "bench/cuda/fdk/back_voxel_variants.hpp"

#include <cuda_runtime.h>

#include <type_traits>

#include "cuda/core/check.hpp"
#include "cuda/fdk/voxel_back_kernels.hpp"

namespace tomo::bench::fdk_b {
namespace {

namespace cd = tomo::fdk::cuda_detail;

constexpr int kMaxAll = 512;  // views of one launch with Mats::param_all (24 KB of parameters)

template <int N>
struct ViewBlock {
  float v[12 * N];
};
struct NoBlock {};
__constant__ float c_mats[12 * kMaxAll];

struct Args {
  float* x;
  int nx, ny, nz;
  float ox, oy, oz, vx, vy, vz;
  const float* pad;
  int W, H, sx, sy;
};

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

// z-invariant column: u (and so its tap column and weight) fixed, only v moves.
__device__ __forceinline__ float ldg_column(const float* __restrict__ col, float au, bool u_ok, const Args& a,
                                            float pr) {
  const float fv = floorf(pr);
  const float av = pr - fv;
  const int iv = static_cast<int>(fv);
  if (!u_ok || static_cast<unsigned>(iv) > static_cast<unsigned>(a.sy)) return 0.0f;
  const float* r = col + iv * a.W;
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

constexpr int kTileMax = 2048;  // floats of one block's footprint (8 KB)

// The tiled gather (Variant::tiled). Each warp finds the footprint itself (lanes 0–7 of every
// group of eight project one corner each, min/max by shuffles), so only the tile needs the block.
__global__ void __launch_bounds__(256) tiled_kernel(const Args a, const __grid_constant__ ViewBlock<kMaxAll> b,
                                                    int count) {
  __shared__ float tile[kTileMax];
  const int tx = threadIdx.x, ty = threadIdx.y, lane = (ty * blockDim.x + tx) & 31;
  const int i = blockIdx.x * blockDim.x + tx, j = blockIdx.y * blockDim.y + ty;
  const int kb = blockIdx.z * 16;
  const bool inside = i < a.nx && j < a.ny;
  const float x = a.ox + i * a.vx, y = a.oy + j * a.vy, z0 = a.oz + kb * a.vz, dz = a.vz;
  // This lane's corner of the block's voxel box.
  const int c = lane & 7;
  const float cx = a.ox + (blockIdx.x * blockDim.x + ((c & 1) ? blockDim.x - 1 : 0)) * a.vx;
  const float cy = a.oy + (blockIdx.y * blockDim.y + ((c & 2) ? blockDim.y - 1 : 0)) * a.vy;
  const float cz = a.oz + (kb + ((c & 4) ? 15 : 0)) * a.vz;
  float acc[16];
#pragma unroll
  for (int q = 0; q < 16; ++q) acc[q] = 0.0f;
  for (int n = 0; n < count; ++n) {
    const float* p = b.v + 12 * n;
    const float* img = a.pad + static_cast<size_t>(n) * a.W * a.H;
    // Footprint in bordered coordinates (texel-centre matrices + 0.5).
    const float ct = fmaf(p[8], cx, fmaf(p[9], cy, fmaf(p[10], cz, p[11])));
    const float crt = __fdividef(1.0f, ct);
    float umin = fmaf(p[0], cx, fmaf(p[1], cy, fmaf(p[2], cz, p[3]))) * crt + 0.5f, umax = umin;
    float vmin = fmaf(p[4], cx, fmaf(p[5], cy, fmaf(p[6], cz, p[7]))) * crt + 0.5f, vmax = vmin;
#pragma unroll
    for (int m = 1; m < 8; m <<= 1) {
      umin = fminf(umin, __shfl_xor_sync(0xffffffffu, umin, m));
      umax = fmaxf(umax, __shfl_xor_sync(0xffffffffu, umax, m));
      vmin = fminf(vmin, __shfl_xor_sync(0xffffffffu, vmin, m));
      vmax = fmaxf(vmax, __shfl_xor_sync(0xffffffffu, vmax, m));
    }
    // One pixel of margin on each side against rounding between the corners and the voxels.
    const int u0 = static_cast<int>(floorf(umin)) - 1, v0 = static_cast<int>(floorf(vmin)) - 1;
    const int tw = static_cast<int>(floorf(umax)) - u0 + 3, th = static_cast<int>(floorf(vmax)) - v0 + 3;
    const bool fits = tw > 0 && th > 0 && tw <= kTileMax && th <= kTileMax && tw * th <= kTileMax;
    const float t = fmaf(p[8], x, fmaf(p[9], y, p[11]));
    const float rt = __fdividef(1.0f, t), w = rt * rt;
    const float pu = fmaf(p[0], x, fmaf(p[1], y, p[3])) * rt + 0.5f;
    const float pv0 = fmaf(p[4], x, fmaf(p[5], y, fmaf(p[6], z0, p[7]))) * rt + 0.5f;
    const float dv = p[6] * dz * rt;
    if (fits) {
      __syncthreads();  // the previous view's reads are done
      for (int r = ty; r < th; r += blockDim.y) {
        const int gv = v0 + r;
        const bool row_ok = gv >= 0 && gv < a.H;
        for (int col = tx; col < tw; col += blockDim.x) {
          const int gu = u0 + col;
          tile[r * tw + col] = row_ok && gu >= 0 && gu < a.W ? __ldg(img + gv * a.W + gu) : 0.0f;
        }
      }
      __syncthreads();
      if (inside) {
        const float lu = pu - u0, fu = floorf(lu), au = lu - fu;
        const int iu = static_cast<int>(fu);
#pragma unroll
        for (int q = 0; q < 16; ++q) {
          const float lv = fmaf(static_cast<float>(q), dv, pv0) - v0, fv = floorf(lv), av = lv - fv;
          const float* r = tile + static_cast<int>(fv) * tw + iu;
          const float lo = fmaf(au, r[1] - r[0], r[0]), hi = fmaf(au, r[tw + 1] - r[tw], r[tw]);
          acc[q] = fmaf(w, fmaf(av, hi - lo, lo), acc[q]);
        }
      }
    } else if (inside) {
      const float fu = floorf(pu), au = pu - fu;
      const int iu = static_cast<int>(fu);
      const bool u_ok = static_cast<unsigned>(iu) <= static_cast<unsigned>(a.sx);
      const float* col = img + (u_ok ? iu : 0);
#pragma unroll
      for (int q = 0; q < 16; ++q)
        acc[q] = fmaf(w, ldg_column(col, au, u_ok, a, fmaf(static_cast<float>(q), dv, pv0)), acc[q]);
    }
  }
  if (!inside) return;
#pragma unroll
  for (int q = 0; q < 16; ++q)
    if (kb + q < a.nz) a.x[(static_cast<size_t>(kb + q) * a.ny + j) * a.nx + i] = acc[q];
}

// The tiled gather with kV views a pass (Variant::tile_views): the footprints of kV views are
// loaded between one pair of barriers (their loads in flight together, the barriers amortised),
// then sampled. kPairs: each tile entry holds the pixel and its right neighbour (float2), so a
// sample is two 8-byte shared reads instead of four 4-byte ones (the gather is issue-bound).
template <int kV, bool kPairs>
__global__ void __launch_bounds__(256) tiled_multi_kernel(const Args a, const __grid_constant__ ViewBlock<kMaxAll> b,
                                                          int count, int cap) {
  extern __shared__ float4 smem4[];  // kV tiles of `cap` entries (float or float2)
  float* tiles = reinterpret_cast<float*>(smem4);
  constexpr int kEntry = kPairs ? 2 : 1;
  const int tx = threadIdx.x, ty = threadIdx.y, lane = (ty * blockDim.x + tx) & 31;
  const int i = blockIdx.x * blockDim.x + tx, j = blockIdx.y * blockDim.y + ty;
  const int kb = blockIdx.z * 16;
  const bool inside = i < a.nx && j < a.ny;
  const float x = a.ox + i * a.vx, y = a.oy + j * a.vy, z0 = a.oz + kb * a.vz, dz = a.vz;
  const int c = lane & 7;
  const float cx = a.ox + (blockIdx.x * blockDim.x + ((c & 1) ? blockDim.x - 1 : 0)) * a.vx;
  const float cy = a.oy + (blockIdx.y * blockDim.y + ((c & 2) ? blockDim.y - 1 : 0)) * a.vy;
  const float cz = a.oz + (kb + ((c & 4) ? 15 : 0)) * a.vz;
  float acc[16];
#pragma unroll
  for (int q = 0; q < 16; ++q) acc[q] = 0.0f;
  for (int n0 = 0; n0 < count; n0 += kV) {
    int u0[kV], v0[kV], tw[kV], th[kV];
    bool fits[kV];
#pragma unroll
    for (int m = 0; m < kV; ++m) {
      const int n = n0 + m < count ? n0 + m : count - 1;
      const float* p = b.v + 12 * n;
      const float ct = fmaf(p[8], cx, fmaf(p[9], cy, fmaf(p[10], cz, p[11])));
      const float crt = __fdividef(1.0f, ct);
      float umin = fmaf(p[0], cx, fmaf(p[1], cy, fmaf(p[2], cz, p[3]))) * crt + 0.5f, umax = umin;
      float vmin = fmaf(p[4], cx, fmaf(p[5], cy, fmaf(p[6], cz, p[7]))) * crt + 0.5f, vmax = vmin;
#pragma unroll
      for (int s = 1; s < 8; s <<= 1) {
        umin = fminf(umin, __shfl_xor_sync(0xffffffffu, umin, s));
        umax = fmaxf(umax, __shfl_xor_sync(0xffffffffu, umax, s));
        vmin = fminf(vmin, __shfl_xor_sync(0xffffffffu, vmin, s));
        vmax = fmaxf(vmax, __shfl_xor_sync(0xffffffffu, vmax, s));
      }
      u0[m] = static_cast<int>(floorf(umin)) - 1;
      v0[m] = static_cast<int>(floorf(vmin)) - 1;
      tw[m] = static_cast<int>(floorf(umax)) - u0[m] + 3;
      th[m] = static_cast<int>(floorf(vmax)) - v0[m] + 3;
      fits[m] = n0 + m < count && tw[m] > 0 && th[m] > 0 && tw[m] <= cap && th[m] <= cap &&
                tw[m] * th[m] <= cap;
    }
    __syncthreads();  // the previous pass's reads are done
#pragma unroll
    for (int m = 0; m < kV; ++m) {
      if (!fits[m]) continue;
      const float* img = a.pad + static_cast<size_t>(n0 + m) * a.W * a.H;
      float* tile = tiles + m * cap * kEntry;
      for (int r = ty; r < th[m]; r += blockDim.y) {
        const int gv = v0[m] + r;
        const bool row_ok = gv >= 0 && gv < a.H;
#pragma unroll 2
        for (int col = tx; col < tw[m]; col += blockDim.x) {
          const int gu = u0[m] + col;
          const float t0 = row_ok && gu >= 0 && gu < a.W ? __ldg(img + gv * a.W + gu) : 0.0f;
          if constexpr (kPairs) {
            const float t1 = row_ok && gu + 1 >= 0 && gu + 1 < a.W ? __ldg(img + gv * a.W + gu + 1) : 0.0f;
            reinterpret_cast<float2*>(tile)[r * tw[m] + col] = make_float2(t0, t1);
          } else {
            tile[r * tw[m] + col] = t0;
          }
        }
      }
    }
    __syncthreads();
    if (!inside) continue;
#pragma unroll
    for (int m = 0; m < kV; ++m) {
      const int n = n0 + m;
      if (n >= count) break;
      const float* p = b.v + 12 * n;
      const float t = fmaf(p[8], x, fmaf(p[9], y, p[11]));
      const float rt = __fdividef(1.0f, t), w = rt * rt;
      const float pu = fmaf(p[0], x, fmaf(p[1], y, p[3])) * rt + 0.5f;
      const float pv0 = fmaf(p[4], x, fmaf(p[5], y, fmaf(p[6], z0, p[7]))) * rt + 0.5f;
      const float dv = p[6] * dz * rt;
      if (fits[m]) {
        const float lu = pu - u0[m], fu = floorf(lu), au = lu - fu;
        const int iu = static_cast<int>(fu), W = tw[m];
        const float* tile = tiles + m * cap * kEntry;
#pragma unroll
        for (int q = 0; q < 16; ++q) {
          const float lv = fmaf(static_cast<float>(q), dv, pv0) - v0[m], fv = floorf(lv), av = lv - fv;
          const int e = static_cast<int>(fv) * W + iu;
          float lo, hi;
          if constexpr (kPairs) {
            const float2 r0 = reinterpret_cast<const float2*>(tile)[e], r1 = reinterpret_cast<const float2*>(tile)[e + W];
            lo = fmaf(au, r0.y - r0.x, r0.x);
            hi = fmaf(au, r1.y - r1.x, r1.x);
          } else {
            const float* r = tile + e;
            lo = fmaf(au, r[1] - r[0], r[0]);
            hi = fmaf(au, r[W + 1] - r[W], r[W]);
          }
          acc[q] = fmaf(w, fmaf(av, hi - lo, lo), acc[q]);
        }
      } else {
        const float* img = a.pad + static_cast<size_t>(n) * a.W * a.H;
        const float fu = floorf(pu), au = pu - fu;
        const int iu = static_cast<int>(fu);
        const bool u_ok = static_cast<unsigned>(iu) <= static_cast<unsigned>(a.sx);
        const float* col = img + (u_ok ? iu : 0);
#pragma unroll
        for (int q = 0; q < 16; ++q)
          acc[q] = fmaf(w, ldg_column(col, au, u_ok, a, fmaf(static_cast<float>(q), dv, pv0)), acc[q]);
      }
    }
  }
  if (!inside) return;
#pragma unroll
  for (int q = 0; q < 16; ++q)
    if (kb + q < a.nz) a.x[(static_cast<size_t>(kb + q) * a.ny + j) * a.nx + i] = acc[q];
}

template <int kV, bool kPairs>
void launch_tiled_multi(const Args& a, const ViewBlock<kMaxAll>& b, int count, int cap, dim3 grid, dim3 block,
                        cudaStream_t s) {
  const int bytes = kV * cap * (kPairs ? 2 : 1) * static_cast<int>(sizeof(float));
  const void* k = reinterpret_cast<const void*>(tiled_multi_kernel<kV, kPairs>);
  TOMO_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  tiled_multi_kernel<kV, kPairs><<<grid, block, bytes, s>>>(a, b, count, cap);
  TOMO_CUDA_CHECK_LAST();
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
  return {
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
  };
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
  if (v.tiled) {
    if (!z_invariant(in.mats, in.views) || in.views > kMaxAll) return false;
    static ViewBlock<kMaxAll> b;
    for (int k = 0; k < in.views; ++k)
      for (int e = 0; e < 12; ++e) {
        const float* m = in.mats + 12 * k;
        b.v[12 * k + e] = e < 8 ? m[e] + 0.5f * m[8 + (e & 3)] : m[e];
      }
    const dim3 block(v.bx, v.by), grid((a.nx + v.bx - 1) / v.bx, (a.ny + v.by - 1) / v.by, (a.nz + 15) / 16);
    if (v.tile_views == 0) {
      tiled_kernel<<<grid, block, 0, s>>>(a, b, in.views);
      TOMO_CUDA_CHECK_LAST();
      return true;
    }
#define TOMO_TILE_CASE(V, P)                                 \
  if (v.tile_views == V && v.tile_pairs == P) {              \
    launch_tiled_multi<V, P>(a, b, in.views, v.tile_cap, grid, block, s); \
    return true;                                             \
  }
    TOMO_TILE_CASE(1, false)
    TOMO_TILE_CASE(2, false)
    TOMO_TILE_CASE(4, false)
    TOMO_TILE_CASE(1, true)
    TOMO_TILE_CASE(2, true)
    TOMO_TILE_CASE(4, true)
#undef TOMO_TILE_CASE
    return false;
  }
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
