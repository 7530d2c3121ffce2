// The projector pair's voxel-driven B on CUDA (see voxel_back_kernels.hpp).
#include <cuda_runtime.h>

#include "cuda/core/check.hpp"
#include "cuda/fdk/voxel_back_kernels.hpp"
#include "cuda/fdk/voxel_back_turn.cuh"

namespace tomo::fdk::cuda_detail {
namespace {

struct ViewBlock {
  float v[kVoxelBackViews * 12];
};

template <Sampling kS>
__global__ void weight_layers_kernel(const float* y, const int* views, const float* weights, int sx, int sy,
                                     cudaSurfaceObject_t surface, float* padded) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int k = blockIdx.z;
  if (i >= sx || j >= sy) return;
  const float* w = weights + kPixelWeightFloats * views[k];
  const float fi = static_cast<float>(i), fj = static_cast<float>(j);
  const float a = fmaf(w[0], fi, fmaf(w[3], fj, w[6]));
  const float b = fmaf(w[1], fi, fmaf(w[4], fj, w[7]));
  const float c = fmaf(w[2], fi, fmaf(w[5], fj, w[8]));
  const float rho = sqrtf(fmaf(a, a, fmaf(b, b, c * c)));
  const float val = y[(static_cast<size_t>(k) * sy + j) * sx + i] * (w[9] * rho);
  if constexpr (kS == Sampling::hardware)
    surf2DLayeredwrite(val, surface, i * static_cast<int>(sizeof(float)), j, k);
  else
    padded[(static_cast<size_t>(k) * (sy + 2) + j + 1) * (sx + 2) + i + 1] = val;
}

// Bilinear from the zero-bordered copy at bordered coordinates (pu, pv) = (u + 1, v + 1) with
// fp32 weights: every u in [−1, sx) and v in [−1, sy) has its taps in the copy, reading what the
// texture's border mode reads; further out the sample is 0, as there.
__device__ __forceinline__ float load_bilinear(const float* __restrict__ img, int sx, int sy, float pu, float pv) {
  const float fu = floorf(pu), fv = floorf(pv);
  const float au = pu - fu, av = pv - fv;
  const int iu = static_cast<int>(fu), iv = static_cast<int>(fv);
  if (static_cast<unsigned>(iu) > static_cast<unsigned>(sx) || static_cast<unsigned>(iv) > static_cast<unsigned>(sy))
    return 0.0f;
  const int w = sx + 2;
  const float* r = img + iv * w + iu;
  const float t00 = __ldg(r), t10 = __ldg(r + 1), t01 = __ldg(r + w), t11 = __ldg(r + w + 1);
  const float lo = fmaf(au, t10 - t00, t00), hi = fmaf(au, t11 - t01, t01);
  return fmaf(av, hi - lo, lo);
}

// The sample at texel-centre coordinates (u, v) of image `layer` (the host folds the shift into
// the matrices: u + 0.5 = (row₀ + 0.5·row₂)·x / t); the loads' bordered copy adds 0.5 more.
template <Sampling kS>
__device__ __forceinline__ float sample(const VoxelBack& l, cudaTextureObject_t tex, int layer, float u, float v) {
  if constexpr (kS == Sampling::loads)
    return load_bilinear(l.padded + static_cast<size_t>(layer) * (l.sx + 2) * (l.sy + 2), l.sx, l.sy, u + 0.5f,
                         v + 0.5f);
  else
    return tex2DLayered<float>(tex, u, v, layer);
}

// The FDK kernel's gather (kernels.cu) on the weighted detector, with B's 1/t². kZ z-voxels per
// thread share the x/y part of u, v, t. kFront: every voxel lies in front of every source (the
// host checked), so the t > 0 test is left out. kInvariant: u and t do not depend on z (a circular
// orbit with an untilted detector), so 1/t, 1/t² and u are per thread and view and v steps by one
// FMA per voxel; the loads' path is issue-bound and gains 24 % by it, the texture unit's none
// (it is bound by the fetches), so hardware sampling keeps the general path.
template <Sampling kS, bool kFront, bool kInvariant, int kZ>
__global__ void __launch_bounds__(kVoxelBlockX* kVoxelBlockY)
    back_voxel_kernel(const VoxelBack l, cudaTextureObject_t tex, int first, const __grid_constant__ ViewBlock b,
                      int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int kb = blockIdx.z * kZ;
  if (i >= l.nx || j >= l.ny) return;
  const float x = l.origin[0] + i * l.voxel[0], y = l.origin[1] + j * l.voxel[1];
  const float z0 = l.origin[2] + kb * l.voxel[2], dz = l.voxel[2];
  float acc[kZ];
#pragma unroll
  for (int q = 0; q < kZ; ++q) acc[q] = 0.0f;
  for (int n = 0; n < count; ++n) {
    const float* p = b.v + 12 * n;  // row-major matrix
    const int layer = first + n;
    // u, v, t at the thread's first voxel; voxel q adds q·dz of the z column (one FMA each, no
    // running sum: its rounding would grow with q).
    const float nu0 = fmaf(p[0], x, fmaf(p[1], y, fmaf(p[2], z0, p[3])));
    const float nv0 = fmaf(p[4], x, fmaf(p[5], y, fmaf(p[6], z0, p[7])));
    const float t0 = fmaf(p[8], x, fmaf(p[9], y, fmaf(p[10], z0, p[11])));
    if constexpr (kInvariant) {
      float rt = __fdividef(1.0f, t0);
      if constexpr (!kFront) rt = t0 > 0.0f ? rt : 0.0f;  // behind the source: weight 0
      const float w = rt * rt, u = nu0 * rt, v0 = nv0 * rt, dv = p[6] * dz * rt;
#pragma unroll
      for (int q = 0; q < kZ; ++q)
        acc[q] = fmaf(w, sample<kS>(l, tex, layer, u, fmaf(static_cast<float>(q), dv, v0)), acc[q]);
    } else {
      const float su = p[2] * dz, sv = p[6] * dz, st = p[10] * dz;
#pragma unroll
      for (int q = 0; q < kZ; ++q) {
        const float fq = static_cast<float>(q);
        const float nu = fmaf(fq, su, nu0), nv = fmaf(fq, sv, nv0), t = fmaf(fq, st, t0);
        // Fast reciprocal (2 ulp): B is fetch-bound, the IEEE sequence is not free.
        float rt = __fdividef(1.0f, t);
        if constexpr (!kFront) rt = t > 0.0f ? rt : 0.0f;
        acc[q] = fmaf(rt * rt, sample<kS>(l, tex, layer, nu * rt, nv * rt), acc[q]);
      }
    }
  }
#pragma unroll
  for (int q = 0; q < kZ; ++q)
    if (kb + q < l.nz) l.x[(static_cast<size_t>(kb + q) * l.ny + j) * l.nx + i] += acc[q];
}

template <Sampling kS, bool kFront, bool kInvariant>
void launch_voxel(const VoxelBack& l, cudaTextureObject_t tex, int first, const ViewBlock& b, int c,
                  cudaStream_t stream) {
  constexpr int kZ = kVoxelBackZ;
  const dim3 grid((l.nx + l.block.x - 1) / l.block.x, (l.ny + l.block.y - 1) / l.block.y, (l.nz + kZ - 1) / kZ);
  back_voxel_kernel<kS, kFront, kInvariant, kZ><<<grid, l.block, 0, stream>>>(l, tex, first, b, c);
}

template <Sampling kS>
void launch_sampling(const VoxelBack& l, cudaTextureObject_t tex, int first, const ViewBlock& b, int c,
                     cudaStream_t stream) {
  const bool invariant = kS == Sampling::loads && l.z_invariant;
  if (l.all_in_front && invariant)
    launch_voxel<kS, true, true>(l, tex, first, b, c, stream);
  else if (l.all_in_front)
    launch_voxel<kS, true, false>(l, tex, first, b, c, stream);
  else if (invariant)
    launch_voxel<kS, false, true>(l, tex, first, b, c, stream);
  else
    launch_voxel<kS, false, false>(l, tex, first, b, c, stream);
}

}  // namespace

void launch_weight_layers(const float* y, const int* views, const float* weights, int count, int sx, int sy,
                          Sampling sampling, cudaSurfaceObject_t surface, float* padded, cudaStream_t stream) {
  if (count <= 0) return;
  const dim3 block(32, 8, 1), grid((sx + 31) / 32, (sy + 7) / 8, count);
  if (sampling == Sampling::hardware)
    weight_layers_kernel<Sampling::hardware><<<grid, block, 0, stream>>>(y, views, weights, sx, sy, surface, padded);
  else
    weight_layers_kernel<Sampling::loads><<<grid, block, 0, stream>>>(y, views, weights, sx, sy, surface, padded);
  TOMO_CUDA_CHECK_LAST();
}

void launch_back_voxel(const VoxelBack& l, cudaTextureObject_t tex, int first, const float* matrices12, int count,
                       Sampling sampling, cudaStream_t stream) {
  for (int n0 = 0; n0 < count; n0 += kVoxelBackViews) {
    const int c = count - n0 < kVoxelBackViews ? count - n0 : kVoxelBackViews;
    ViewBlock b{};
    for (int k = 0; k < c; ++k) {
      const float* m = matrices12 + 12 * (n0 + k);
      float* o = b.v + 12 * k;
      for (int e = 0; e < 12; ++e) o[e] = m[e];
      for (int e = 0; e < 4; ++e) {  // texel centres: u + 0.5 and v + 0.5 folded into the numerators
        o[e] = m[e] + 0.5f * m[8 + e];
        o[4 + e] = m[4 + e] + 0.5f * m[8 + e];
      }
    }
    if (sampling == Sampling::hardware)
      launch_sampling<Sampling::hardware>(l, tex, first + n0, b, c, stream);
    else
      launch_sampling<Sampling::loads>(l, tex, first + n0, b, c, stream);
    TOMO_CUDA_CHECK_LAST();
  }
}

void launch_weight_turn(const float* y, const float* weights, const float* inv_c2, int views, int k, int sx, int sy,
                        unsigned* max_bits, float weight_max, cudaSurfaceObject_t surface, cudaStream_t stream) {
  if (k == 4)
    launch_turn_pack<4, HalfTexelStore>(y, weights, inv_c2, views, sx, sy, max_bits, weight_max, surface, stream);
  else
    launch_turn_pack<2, HalfTexelStore>(y, weights, inv_c2, views, sx, sy, max_bits, weight_max, surface, stream);
  TOMO_CUDA_CHECK_LAST();
}

void launch_back_voxel_turn(const VoxelBack& l, cudaTextureObject_t tex, const float* m12, int views, int k, int sense,
                            const unsigned* max_bits, float weight_max, cudaStream_t stream) {
  VoxelBack t = l;
  t.block = k == 4 ? dim3(kQuarterBlock[0], kQuarterBlock[1], 1) : dim3(kHalfBlock[0], kHalfBlock[1], 1);
  if (k == 4 && l.z_invariant)
    launch_turn_back<4, kTurnZ, true>(t, tex, m12, views, sense, max_bits, weight_max, stream);
  else if (k == 4)
    launch_turn_back<4, kTurnZ, false>(t, tex, m12, views, sense, max_bits, weight_max, stream);
  else if (l.z_invariant)
    launch_turn_back<2, kTurnZ, true>(t, tex, m12, views, 0, max_bits, weight_max, stream);
  else
    launch_turn_back<2, kTurnZ, false>(t, tex, m12, views, 0, max_bits, weight_max, stream);
  TOMO_CUDA_CHECK_LAST();
}

float turn_weight_max(const float* weights, const float* inv_c2, int views, int sx, int sy) {
  float out = 0.0f;
  for (int n = 0; n < views; ++n) {
    const float* w = weights + kPixelWeightFloats * static_cast<size_t>(n);
    for (const float i : {0.0f, static_cast<float>(sx - 1)})
      for (const float j : {0.0f, static_cast<float>(sy - 1)}) {
        const float a = w[0] * i + w[3] * j + w[6], b = w[1] * i + w[4] * j + w[7], c = w[2] * i + w[5] * j + w[8];
        out = fmaxf(out, w[9] * sqrtf(a * a + b * b + c * c) * inv_c2[n]);
      }
  }
  return out;
}

}  // namespace tomo::fdk::cuda_detail
