// Definitions the candidate gathers of B share (back_voxel_variants.cu, back_voxel_tiled.cu):
// the kernels' arguments, by-value matrix blocks and the z-invariant column sample of the
// zero-bordered weighted copy. Bench only; included by nvcc-compiled files.
#pragma once
#include <cuda_runtime.h>

namespace tomo::bench::fdk_b {

constexpr int kMaxAll = 512;  // views of one launch with Mats::param_all (24 KB of parameters)

template <int N>
struct ViewBlock {
  float v[12 * N];
};

struct Args {
  float* x;
  int nx, ny, nz;
  float ox, oy, oz, vx, vy, vz;
  const float* pad;
  int W, H, sx, sy;
};

#ifdef __CUDACC__
// z-invariant column: u (and so its tap column and weight) fixed, only v moves; 0 where a tap
// would leave the border.
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
#endif

}  // namespace tomo::bench::fdk_b
