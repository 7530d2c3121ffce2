// Device helpers shared by the oat FBP kernels (fbp_texture_kernels.cu, fbp_pinned_kernels.cu): the
// reciprocal square root, the midpoint split of k̃ and its refinement in double (fbp_kernels.hpp).
#pragma once
#include <cuda_runtime.h>

namespace tomo::oat::cuda_detail {

// x + 1.5·2²³ rounds x to an integer in fp32 (|x| < 2²²): round(k̃ − ½) = ⌊k̃⌋ in two full-rate
// adds, where floorf would be a quarter-rate conversion. (At an exact integer k̃ the tie may give
// either neighbour, g = ±½: such pairs are within eps of an integer and recomputed in double.)
inline constexpr float kFbpMagic = 12582912.0f;

// 1/√x without the IEEE denormal fix-up around MUFU.RSQ (x is a squared distance of at least
// ~1e-6 mm², never denormal): one issue slot per update.
__device__ __forceinline__ float fbp_rsqrt(float x) {
  float y;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// k = round(k̃ − ½) (as int and float) and g = k̃ − ½ − k ∈ [−½, ½] from kh = k̃ − ½; bits = k +
// bits(kFbpMagic), so that k − k₀ is one add of a constant hoisted per transducer. Callers take
// the double refinement unless |g| ≤ ½ − eps, which a NaN (a voxel centre on a transducer) fails.
struct FbpSplit {
  float g, kf;
  int k, bits;
};
__device__ __forceinline__ FbpSplit fbp_split(float kh) {
  const float r = __fadd_rn(kh, kFbpMagic);
  const float kf = __fadd_rn(r, -kFbpMagic);
  const unsigned bits = __float_as_uint(r);  // unsigned: no overflow whatever kh was (NaN, ±inf)
  return {__fsub_rn(kh, kf), kf, static_cast<int>(bits - __float_as_uint(kFbpMagic)), static_cast<int>(bits)};
}

// The split of voxel (i, j, kz) and transducer q in double, as the cpu computes k̃ (rare: see
// fbp_kernels.hpp). By value, not a reference to the kernel's parameters: that would copy them
// to local memory.
__device__ __forceinline__ FbpSplit fbp_refine_inline(const double* positions, double voxel, double inv_c0dt,
                                                      double tau0, int q, int i, int j, int kz) {
  const double* s = positions + 3 * static_cast<size_t>(q);
  const double dx = i * voxel - s[0], dy = j * voxel - s[1], dz = kz * voxel - s[2];
  const double kt = sqrt(dx * dx + dy * dy + dz * dz) * inv_c0dt - tau0;
  const double kf = floor(kt);
  const int k = static_cast<int>(kf);
  return {static_cast<float>(kt - kf - 0.5), static_cast<float>(kf), k, k + __float_as_int(kFbpMagic)};
}
// The same as a call: the kernels' fast paths keep fewer registers so.
static __device__ __noinline__ FbpSplit fbp_refine(const double* positions, double voxel, double inv_c0dt,
                                                   double tau0, int q, int i, int j, int kz) {
  return fbp_refine_inline(positions, voxel, inv_c0dt, tau0, q, i, j, kz);
}

}  // namespace tomo::oat::cuda_detail
