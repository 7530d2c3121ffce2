// The 16-bit texel candidates of B (see back_voxel_narrow.hpp).
#include "bench/cuda/fdk/back_voxel_narrow.hpp"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "cuda/core/check.hpp"

namespace tomo::bench::fdk_b {
namespace {

// The layered 16-bit array, its surface and texture (made on first use, remade when the stack's
// size or the texel kind changes) and the per-view scales.
struct Narrow {
  cudaArray_t array = nullptr;
  cudaSurfaceObject_t surf = 0;
  cudaTextureObject_t tex = 0;
  unsigned* maxbits = nullptr;  // per view: bits of max |value| (non-negative floats order as ints)
  float* scale = nullptr;       // per view: max |value| (snorm16), 1 (half)
  int sx = 0, sy = 0, views = 0;
  Texel kind = Texel::f32;
};
Narrow g_narrow;

void release() {
  if (g_narrow.tex) TOMO_CUDA_CHECK(cudaDestroyTextureObject(g_narrow.tex));
  if (g_narrow.surf) TOMO_CUDA_CHECK(cudaDestroySurfaceObject(g_narrow.surf));
  if (g_narrow.array) TOMO_CUDA_CHECK(cudaFreeArray(g_narrow.array));
  if (g_narrow.maxbits) TOMO_CUDA_CHECK(cudaFree(g_narrow.maxbits));
  if (g_narrow.scale) TOMO_CUDA_CHECK(cudaFree(g_narrow.scale));
  g_narrow = Narrow{};
}

void ensure(const Inputs& in, Texel kind) {
  if (g_narrow.array && g_narrow.sx == in.sx && g_narrow.sy == in.sy && g_narrow.views == in.views &&
      g_narrow.kind == kind)
    return;
  release();
  const cudaChannelFormatDesc desc =
      kind == Texel::half ? cudaCreateChannelDescHalf() : cudaCreateChannelDesc<short>();
  TOMO_CUDA_CHECK(cudaMalloc3DArray(&g_narrow.array, &desc, make_cudaExtent(in.sx, in.sy, in.views),
                                    cudaArrayLayered | cudaArraySurfaceLoadStore));
  cudaResourceDesc res{};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = g_narrow.array;
  TOMO_CUDA_CHECK(cudaCreateSurfaceObject(&g_narrow.surf, &res));
  cudaTextureDesc td{};
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeBorder;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = kind == Texel::half ? cudaReadModeElementType : cudaReadModeNormalizedFloat;
  td.normalizedCoords = 0;
  TOMO_CUDA_CHECK(cudaCreateTextureObject(&g_narrow.tex, &res, &td, nullptr));
  TOMO_CUDA_CHECK(cudaMalloc(&g_narrow.maxbits, sizeof(unsigned) * in.views));
  TOMO_CUDA_CHECK(cudaMalloc(&g_narrow.scale, sizeof(float) * in.views));
  g_narrow.sx = in.sx;
  g_narrow.sy = in.sy;
  g_narrow.views = in.views;
  g_narrow.kind = kind;
}

// Per view max |value| of the padded copy's interior (one atomic a warp).
__global__ void max_kernel(const float* padded, int sx, int sy, unsigned* maxbits) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int k = blockIdx.z;
  const size_t W = sx + 2, H = sy + 2;
  const float v = (i < sx && j < sy) ? fabsf(padded[(k * H + j + 1) * W + i + 1]) : 0.0f;
  const unsigned m = __reduce_max_sync(0xffffffffu, __float_as_uint(v));
  if (((threadIdx.y * blockDim.x + threadIdx.x) & 31) == 0) atomicMax(maxbits + k, m);
}

__global__ void scale_kernel(const unsigned* maxbits, int views, float* scale) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= views) return;
  const float m = __uint_as_float(maxbits[k]);
  scale[k] = m > 0.0f ? m : 1.0f;
}

template <Texel kT>
__global__ void convert_kernel(const float* padded, int sx, int sy, const float* scale, cudaSurfaceObject_t surf) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int k = blockIdx.z;
  if (i >= sx || j >= sy) return;
  const size_t W = sx + 2, H = sy + 2;
  const float v = padded[(k * H + j + 1) * W + i + 1];
  if constexpr (kT == Texel::half) {
    surf2DLayeredwrite(__half_as_ushort(__float2half_rn(v)), surf, i * 2, j, k);
  } else {
    const float s = fminf(fmaxf(v / scale[k], -1.0f), 1.0f) * 32767.0f;
    surf2DLayeredwrite(static_cast<short>(__float2int_rn(s)), surf, i * 2, j, k);
  }
}

// The product's gather (general z mode, 16 z-voxels, 64 views a launch) times the view's scale.
template <Texel kT>
__global__ void __launch_bounds__(256) gather16_kernel(const Args a, cudaTextureObject_t tex, const float* scale,
                                                       int first, const __grid_constant__ ViewBlock<64> b, int count) {
  constexpr int kZ = 16;
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
    const int layer = first + n;
    const float sc = kT == Texel::half ? 1.0f : __ldg(scale + layer);
    const float nu0 = fmaf(p[0], x, fmaf(p[1], y, fmaf(p[2], z0, p[3])));
    const float nv0 = fmaf(p[4], x, fmaf(p[5], y, fmaf(p[6], z0, p[7])));
    const float t0 = fmaf(p[8], x, fmaf(p[9], y, fmaf(p[10], z0, p[11])));
    const float su = p[2] * dz, sv = p[6] * dz, st = p[10] * dz;
#pragma unroll
    for (int q = 0; q < kZ; ++q) {
      const float fq = static_cast<float>(q);
      const float nu = fmaf(fq, su, nu0), nv = fmaf(fq, sv, nv0), t = fmaf(fq, st, t0);
      const float rt = __fdividef(1.0f, t);
      const float s = tex2DLayered<float>(tex, nu * rt, nv * rt, layer);
      acc[q] = fmaf(kT == Texel::half ? rt * rt : rt * rt * sc, s, acc[q]);
    }
  }
#pragma unroll
  for (int q = 0; q < kZ; ++q)
    if (kb + q < a.nz) {
      float* o = a.x + (static_cast<size_t>(kb + q) * a.ny + j) * a.nx + i;
      *o = acc[q] + (first > 0 ? *o : 0.0f);
    }
}

}  // namespace

bool run_narrow(const Variant& v, const Inputs& in, const Args& a, cudaStream_t s) {
  if (v.kz != 16 || (v.texel != Texel::half && v.texel != Texel::snorm16)) return false;
  ensure(in, v.texel);
  const dim3 pb(32, 8), pg((in.sx + 31) / 32, (in.sy + 7) / 8, in.views);
  if (v.texel == Texel::snorm16) {
    TOMO_CUDA_CHECK(cudaMemsetAsync(g_narrow.maxbits, 0, sizeof(unsigned) * in.views, s));
    max_kernel<<<pg, pb, 0, s>>>(in.padded, in.sx, in.sy, g_narrow.maxbits);
    TOMO_CUDA_CHECK_LAST();
    scale_kernel<<<(in.views + 127) / 128, 128, 0, s>>>(g_narrow.maxbits, in.views, g_narrow.scale);
    TOMO_CUDA_CHECK_LAST();
    convert_kernel<Texel::snorm16><<<pg, pb, 0, s>>>(in.padded, in.sx, in.sy, g_narrow.scale, g_narrow.surf);
  } else {
    convert_kernel<Texel::half><<<pg, pb, 0, s>>>(in.padded, in.sx, in.sy, g_narrow.scale, g_narrow.surf);
  }
  TOMO_CUDA_CHECK_LAST();
  const dim3 block(v.bx, v.by), grid((a.nx + v.bx - 1) / v.bx, (a.ny + v.by - 1) / v.by, (a.nz + 15) / 16);
  for (int n0 = 0; n0 < in.views; n0 += 64) {
    const int c = in.views - n0 < 64 ? in.views - n0 : 64;
    ViewBlock<64> b;
    for (int k = 0; k < c; ++k) {
      const float* m = in.mats + 12 * (n0 + k);
      for (int e = 0; e < 12; ++e) b.v[12 * k + e] = m[e];
      for (int e = 0; e < 4; ++e) {  // texel centres, as the product
        b.v[12 * k + e] = m[e] + 0.5f * m[8 + e];
        b.v[12 * k + 4 + e] = m[4 + e] + 0.5f * m[8 + e];
      }
    }
    if (v.texel == Texel::half)
      gather16_kernel<Texel::half><<<grid, block, 0, s>>>(a, g_narrow.tex, g_narrow.scale, n0, b, c);
    else
      gather16_kernel<Texel::snorm16><<<grid, block, 0, s>>>(a, g_narrow.tex, g_narrow.scale, n0, b, c);
    TOMO_CUDA_CHECK_LAST();
  }
  return true;
}

}  // namespace tomo::bench::fdk_b
