// The arithmetic of one strip event, shared verbatim by the CPU (double) and CUDA (float)
// backends: eq. (2) reconstruction, the 3σ ellipse and bounding box (App. B) and the kernel (7)–(12).
// Plain templates with no library dependency so nvcc and the host compiler see the same code.
#pragma once
#include <math.h>

#include "compute/core/host_device.hpp"

namespace tomo::strip {

template <class T>
TOMO_HD T k_sqrt(T x) {
  if constexpr (sizeof(T) == 4) return sqrtf(x); else return sqrt(x);
}
// float on the GPU uses the hardware approximations (rsqrt.approx, ex2.approx: ~2 ulp over the
// kernel's range x ∈ [−5, 0]); the cpu backend is double throughout.
template <class T>
TOMO_HD T k_exp(T x) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 4) return __expf(x); else return exp(x);
#else
  if constexpr (sizeof(T) == 4) return expf(x); else return exp(x);
#endif
}
template <class T>
TOMO_HD T k_rsqrt(T x) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 4) return rsqrtf(x); else return rsqrt(x);
#else
  return T(1) / k_sqrt(x);
#endif
}
template <class T>
TOMO_HD T k_floor(T x) {
  if constexpr (sizeof(T) == 4) return floorf(x); else return floor(x);
}
template <class T>
TOMO_HD T k_ceil(T x) {
  if constexpr (sizeof(T) == 4) return ceilf(x); else return ceil(x);
}

// Pixel grid over (y, z): pixel (j, k) has its centre at (y0 + j*py, z0 + k*pz); index j*nz + k.
template <class T>
struct GridParams {
  T y0, z0, py, pz;
  int ny, nz;
};

// Constants of the kernel for a diagonal C⁻¹ = diag(1/σz², 1/σz², 1/σΔl²) ([Bialas2015] eq. (12), γ = 0).
template <class T>
struct KernelParams {
  T R;        // half-distance between the strips (mm)
  T inv_vz;   // 1/σz²
  T inv_vl;   // 1/σΔl²
  T norm;     // det^{1/2}(C⁻¹) / (2π²): makes P a density in (z̃u, z̃d, Δl̃) per emission
  T cut;      // ellipse level: bC⁻¹b ≤ cut (9 for the seed's 3σ ellipse)
};

template <class T>
KernelParams<T> make_kernel_params(double R, double sigma_z, double sigma_dl, double nsigma = 3.0) {
  const double iz = 1.0 / (sigma_z * sigma_z), il = 1.0 / (sigma_dl * sigma_dl);
  const double pi = 3.14159265358979323846;
  return {T(R), T(iz), T(il), T(sqrt(iz * iz * il) / (2.0 * pi * pi)), T(nsigma * nsigma)};
}

// A reconstructed event and its ellipse: [Bialas2015] eq. (2) and eq. (15).
template <class T>
struct EventFrame {
  T y, z;        // ỹ, z̃ (mm)
  T tan, sec;    // tan θ̃, 1/cos θ̃
  T A, C, B;     // bC⁻¹b = A Δy² + 2C ΔyΔz + B Δz² (eq. 15; C is half the cross coefficient)
  T half_y, half_z;  // half-sizes of the bounding box of bC⁻¹b = cut (eq. 14)
};

template <class T>
TOMO_HD EventFrame<T> make_frame(T zu, T zd, T dl, const KernelParams<T>& k) {
  EventFrame<T> f;
  f.tan = (zu - zd) / (T(2) * k.R);                 // eq. (2)
  f.sec = k_sqrt(T(1) + f.tan * f.tan);
  f.y = T(-0.5) * dl / f.sec;                       // ỹ = -½ Δl̃ cos θ̃
  f.z = T(0.5) * (zu + zd + T(2) * f.y * f.tan);    // z̃ = ½(z̃u + z̃d + 2ỹ tan θ̃)
  // eq. (15): 2(Δz − Δy t)²/σz² + 4Δy²/(σΔl² cos²θ̃)
  f.A = T(2) * f.tan * f.tan * k.inv_vz + T(4) * k.inv_vl * f.sec * f.sec;
  f.C = T(-2) * f.tan * k.inv_vz;
  f.B = T(2) * k.inv_vz;
  // eq. (14), written for a cross term 2CΔyΔz: extent = √cut / √(A − C²/B), √cut / √(B − C²/A)
  const T r = k_sqrt(k.cut);
  f.half_y = r / k_sqrt(f.A - f.C * f.C / f.B);
  f.half_z = r / k_sqrt(f.B - f.C * f.C / f.A);
  return f;
}

// bC⁻¹b at pixel offset (Δy, Δz) = (y − ỹ, z − z̃), eq. (11), (15).
template <class T>
TOMO_HD T ellipse_form(const EventFrame<T>& f, T dy, T dz) {
  return f.A * dy * dy + T(2) * f.C * dy * dz + f.B * dz * dz;
}

// P(ẽ|i) of [Bialas2015] eq. (7) with o, a, b of eqs. (8)–(10); `q` is bC⁻¹b at this pixel.
// Derived by a Laplace integral over the true angle θ = θ̃ + δ of a Gaussian in
// (z̃u, z̃d, Δl̃) with the angle density 1/π: a = ∂e/∂θ, o = ½ ∂²e/∂θ² at the pixel's y.
// The third component of a is −2y sec θ̃ tan θ̃ (= ∂Δl/∂θ; the printed eq. (9) lacks the 2, and the
// term is < 10⁻³ of aC⁻¹a here). The prefactor includes the 1/π angle density (a constant,
// which cancels in eq. (5)); with it, ∫P dẽ = 1 over all ẽ.
template <class T>
TOMO_HD T kernel_value(const EventFrame<T>& f, const KernelParams<T>& k, T dy, T dz, T q) {
  const T y = f.y + dy;
  const T t = f.tan, s = f.sec, s2 = f.sec * f.sec;
  const T b1 = dz - dy * t;                       // b1 = b2, eq. (10)
  const T b3 = T(-2) * dy * s;
  const T a12 = T(-2) * y * s2;                   // a1 + a2, eq. (9)
  const T a3 = T(-2) * y * t * s;
  const T o12 = T(-2) * y * t * s2;               // o1 + o2, eq. (8)
  const T o3 = -y * s * (T(1) + T(2) * t * t);
  const T aCb = k.inv_vz * a12 * b1 + k.inv_vl * a3 * b3;
  const T aCa = k.inv_vz * T(2) * (k.R * k.R + y * y) * s2 * s2 + k.inv_vl * a3 * a3;
  const T oCb = k.inv_vz * o12 * b1 + k.inv_vl * o3 * b3;
  const T Q = aCa + T(2) * oCb;
  if (!(Q > T(0))) return T(0);
  const T r = k_rsqrt(Q);  // 1/√Q, and 1/Q = r²
  return k.norm * r * k_exp(T(-0.5) * (q - aCb * aCb * r * r));
}

// The kernel along one pixel row (fixed y, so fixed Δy): every term of kernel_value that depends
// on y only, hoisted out of the loop over z. With b1 = Δz − Δy tan θ̃ the remaining per-pixel work is
// q = qy + 2b1²/σz², aC⁻¹b = u0 + u1·b1, Q = Q0 + Q1·b1 (same algebra as kernel_value).
template <class T>
struct KernelRow {
  T dy, qy, u0, u1, Q0, Q1;
  T b1_half;  // the row's inside-ellipse interval is |b1| <= b1_half (negative: the row misses it)
};

template <class T>
TOMO_HD KernelRow<T> make_row(const EventFrame<T>& f, const KernelParams<T>& k, T dy) {
  const T y = f.y + dy, t = f.tan, s = f.sec, s2 = f.sec * f.sec;
  const T b3 = T(-2) * dy * s;
  const T a3 = T(-2) * y * t * s, o3 = -y * s * (T(1) + T(2) * t * t);
  KernelRow<T> r;
  r.dy = dy;
  r.qy = k.inv_vl * b3 * b3;
  r.u0 = k.inv_vl * a3 * b3;
  r.u1 = k.inv_vz * T(-2) * y * s2;                  // iz (a1 + a2)
  r.Q0 = k.inv_vz * T(2) * (k.R * k.R + y * y) * s2 * s2 + k.inv_vl * a3 * a3 + T(2) * k.inv_vl * o3 * b3;
  r.Q1 = T(2) * k.inv_vz * T(-2) * y * t * s2;       // 2 iz (o1 + o2)
  const T rem = k.cut - r.qy;
  r.b1_half = rem >= T(0) ? k_sqrt(rem / (T(2) * k.inv_vz)) : T(-1);
  return r;
}

// P at b1 = Δz − Δy tan θ̃ on a row; equals kernel_value at the same pixel (no ellipse test here).
template <class T>
TOMO_HD T kernel_row_value(const KernelRow<T>& r, const KernelParams<T>& k, T b1) {
  const T q = r.qy + T(2) * k.inv_vz * b1 * b1;
  const T Q = r.Q0 + r.Q1 * b1;
  if (!(Q > T(0))) return T(0);
  const T u = r.u0 + r.u1 * b1;
  const T rs = k_rsqrt(Q);
  return k.norm * rs * k_exp(T(-0.5) * (q - u * u * rs * rs));
}

// Inclusive pixel ranges whose centres lie in the bounding box; empty when j0 > j1 or k0 > k1.
struct PixelBox {
  int j0, j1, k0, k1;
};

template <class T>
TOMO_HD PixelBox pixel_box(const EventFrame<T>& f, const GridParams<T>& g) {
  PixelBox b{1, 0, 1, 0};
  const T fj0 = k_ceil((f.y - f.half_y - g.y0) / g.py), fj1 = k_floor((f.y + f.half_y - g.y0) / g.py);
  const T fk0 = k_ceil((f.z - f.half_z - g.z0) / g.pz), fk1 = k_floor((f.z + f.half_z - g.z0) / g.pz);
  // Reject before converting to int (events far outside the grid, NaN).
  if (!(fj1 >= T(0) && fj0 <= T(g.ny - 1) && fk1 >= T(0) && fk0 <= T(g.nz - 1))) return b;
  b.j0 = fj0 < T(0) ? 0 : int(fj0);
  b.j1 = fj1 > T(g.ny - 1) ? g.ny - 1 : int(fj1);
  b.k0 = fk0 < T(0) ? 0 : int(fk0);
  b.k1 = fk1 > T(g.nz - 1) ? g.nz - 1 : int(fk1);
  return b;
}

}  // namespace tomo::strip
