// Device helpers of the H_sph kernels (sph_kernels.cu; bench/cuda/oat's baselines): the phasor
// e^{−ĵ2πt} of a phase in turns, the complex product, a voxel's centre and value.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/oat/sph_kernels.hpp"

namespace tomo::oat::cuda_detail {

inline constexpr float kTwoPi = 6.283185307179586f;

// e^{−ĵ2πt} for t in turns.
__device__ __forceinline__ float2 phasor(float t) {
  t -= rintf(t);
  float s, c;
  __sincosf(-kTwoPi * t, &s, &c);
  return make_float2(c, s);
}

__device__ __forceinline__ float2 cmul(float2 a, float2 b) {
  return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

__device__ __forceinline__ float4 voxel(const GridParams<float>& g, const float* alpha, std::int64_t n) {
  const std::int64_t plane = static_cast<std::int64_t>(g.nx) * g.ny;
  const int k = static_cast<int>(n / plane);
  const std::int64_t r = n - k * plane;
  const int j = static_cast<int>(r / g.nx), i = static_cast<int>(r - static_cast<std::int64_t>(j) * g.nx);
  return make_float4(g.x0 + i * g.ds, g.y0 + j * g.ds, g.z0 + k * g.ds, alpha ? alpha[n] : 0.f);
}

}  // namespace tomo::oat::cuda_detail
