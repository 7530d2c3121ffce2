// The line math of the glpet line set (docs/glpet.md §2, [Toth2010] §II.B), shared verbatim by the
// cpu reference (double) and the CUDA kernels (float): trilinear σ_t and the ray-marched sum.
// Plain templates with no library dependency so nvcc and the host compiler see the same code.
#pragma once
#include <math.h>

#include "compute/core/host_device.hpp"

namespace tomo::glpet::line_math {

template <class T>
TOMO_HD T lm_floor(T x) {
  if constexpr (sizeof(T) == 4) return floorf(x); else return floor(x);
}

// max/min as each backend wrote them before the math was shared: fmax/fmin and integer max/min
// on the device, std::max/std::min's comparisons on the host (equal for all finite operands).
template <class T>
TOMO_HD T lm_max(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 8) return fmax(a, b); else return max(a, b);
#else
  return a < b ? b : a;
#endif
}
template <class T>
TOMO_HD T lm_min(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 8) return fmin(a, b); else return min(a, b);
#else
  return b < a ? b : a;
#endif
}

// How a lerp a + (b − a)·t is rounded. The cpu writes it plainly (double, no FMA on the host
// target); the CUDA kernels spell out the fused form so the rounding does not hang on nvcc's
// contraction choices. Both are the contract's trilinear; they differ in the last bit only.
enum class Lerp { plain, fused };

template <Lerp L, class T>
TOMO_HD T lerp(T a, T b, T t) {
  if constexpr (L == Lerp::fused) return fmaf(b - a, t, a); else return a + (b - a) * t;
}

// σ_t at continuous voxel index g: trilinear interpolation of the voxel values at voxel centres
// (integer g), texels outside the grid reading 0, so zero outside the grid grown by one voxel
// (a GL 3D texture with GL_LINEAR and CLAMP_TO_BORDER(0), but with exact fp weights).
// corners(i, j, k, c) fills c[0..7] with the texels (i+a, j+b, k+c), index a + 2b + 4c, each 0
// outside the grid; the caller chooses how to load them (cpu: an interior fast path by stride).
template <Lerp L, class T, class Corners>
TOMO_HD T sigma_at(T gx, T gy, T gz, const int n[3], Corners corners) {
  if (gx <= T(-1) || gy <= T(-1) || gz <= T(-1) || gx >= T(n[0]) || gy >= T(n[1]) || gz >= T(n[2])) return T(0);
  const T fx0 = lm_floor(gx), fy0 = lm_floor(gy), fz0 = lm_floor(gz);
  T c[8];
  corners(int(fx0), int(fy0), int(fz0), c);
  const T fx = gx - fx0, fy = gy - fy0, fz = gz - fz0;
  const T c00 = lerp<L>(c[0], c[1], fx), c10 = lerp<L>(c[2], c[3], fx);
  const T c01 = lerp<L>(c[4], c[5], fx), c11 = lerp<L>(c[6], c[7], fx);
  return lerp<L>(lerp<L>(c00, c10, fy), lerp<L>(c01, c11, fy), fz);
}

// The segment y2 → y1 in continuous voxel index: g(t) = g0 + t·dg, y(t) = y2 + t(y1 − y2), and
// the midpoint samples t_k = (k+½)/K, k0 ≤ k ≤ k1, that can see a non-zero σ_t (g ∈ (−1, n)
// per axis). False when none can: the transmission is 1. Double whatever the march precision,
// so every backend skips the same samples. V: any indexable triple (Vec3, double[3]).
template <class V>
TOMO_HD bool sample_range(const V& y1, const V& y2, const V& origin, const V& inv_voxel, const int n[3], int K,
                                double g0[3], double dg[3], int& k0, int& k1) {
  double t0 = 0, t1 = 1;
  for (int a = 0; a < 3; ++a) {
    g0[a] = (y2[a] - origin[a]) * inv_voxel[a];
    dg[a] = (y1[a] - y2[a]) * inv_voxel[a];
    if (dg[a] == 0) {
      if (g0[a] <= -1 || g0[a] >= n[a]) return false;
      continue;
    }
    double ta = (-1 - g0[a]) / dg[a], tb = (n[a] - g0[a]) / dg[a];
    if (ta > tb) {
      const double s = ta;
      ta = tb;
      tb = s;
    }
    t0 = lm_max(t0, ta);
    t1 = lm_min(t1, tb);
  }
  if (t0 >= t1) return false;
  k0 = lm_max(0, int(floor(t0 * K - 0.5)));
  k1 = lm_min(K - 1, int(ceil(t1 * K - 0.5)));
  return true;
}

// Σ_k σ_t(y(t_k)) over k0..k1 ([Toth2010] §II.B midpoint rule); sample(t) returns σ_t at y(t). The
// transmission is exp(−sum·|y1 − y2|/K), each backend in its own precision.
template <class T, class Sample>
TOMO_HD T midpoint_sum(int k0, int k1, int K, Sample sample) {
  T sum = 0;
  for (int k = k0; k <= k1; ++k) sum += sample((k + T(0.5)) / K);
  return sum;
}

}  // namespace tomo::glpet::line_math
