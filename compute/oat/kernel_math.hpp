// The arithmetic of the oat operators, shared verbatim by the cpu (double) and CUDA (float)
// backends: trilinear weights, the patches of a spherical shell (H_srt), the time derivative D,
// the EIR taps and the fused FBP term per voxel and transducer ([Wang2013]).
// Plain templates with no library dependency so nvcc and the host compiler see the same code.
#pragma once
#include <math.h>

#include "compute/core/host_device.hpp"

namespace tomo::oat {

template <class T>
TOMO_HD T m_sqrt(T x) {
  if constexpr (sizeof(T) == 4) return sqrtf(x); else return sqrt(x);
}
template <class T>
TOMO_HD T m_floor(T x) {
  if constexpr (sizeof(T) == 4) return floorf(x); else return floor(x);
}
template <class T>
TOMO_HD T m_ceil(T x) {
  if constexpr (sizeof(T) == 4) return ceilf(x); else return ceil(x);
}
template <class T>
TOMO_HD T m_acos(T x) {
  if constexpr (sizeof(T) == 4) return acosf(x); else return acos(x);
}
template <class T>
TOMO_HD void m_sincos(T x, T* s, T* c) {
  if constexpr (sizeof(T) == 4) { *s = sinf(x); *c = cosf(x); } else { *s = sin(x); *c = cos(x); }
}

template <class T> inline constexpr T kPi = T(3.14159265358979323846);

// Voxel grid: voxel (i, j, k) has its centre at (x0 + iΔs, y0 + jΔs, z0 + kΔs); index i + nx(j + ny·k).
template <class T>
struct GridParams {
  T x0, y0, z0, ds;
  int nx, ny, nz;
};

// Calls f(index, weight) for the (up to) eight voxels of the trilinear interpolant at (x, y, z)
// that lie in the grid (voxels outside count as zero). Both H_srt and H_srtᵀ go through here.
template <class T, class F>
TOMO_HD void trilinear_visit(const GridParams<T>& g, T x, T y, T z, F&& f) {
  const T inv = T(1) / g.ds;
  const T fx = (x - g.x0) * inv, fy = (y - g.y0) * inv, fz = (z - g.z0) * inv;
  const T bx = m_floor(fx), by = m_floor(fy), bz = m_floor(fz);
  const int i0 = static_cast<int>(bx), j0 = static_cast<int>(by), k0 = static_cast<int>(bz);
  if (i0 < -1 || j0 < -1 || k0 < -1 || i0 >= g.nx || j0 >= g.ny || k0 >= g.nz) return;
  const T wx[2] = {T(1) - (fx - bx), fx - bx};
  const T wy[2] = {T(1) - (fy - by), fy - by};
  const T wz[2] = {T(1) - (fz - bz), fz - bz};
  for (int c = 0; c < 2; ++c) {
    const int k = k0 + c;
    if (k < 0 || k >= g.nz) continue;
    for (int b = 0; b < 2; ++b) {
      const int j = j0 + b;
      if (j < 0 || j >= g.ny) continue;
      for (int a = 0; a < 2; ++a) {
        const int i = i0 + a;
        if (i < 0 || i >= g.nx) continue;
        f(i + g.nx * (j + g.ny * k), wx[a] * wy[b] * wz[c]);
      }
    }
  }
}

// A transducer's frame for H_srt: e points from the transducer to the support's centre, (u, v)
// complete it; D = distance to that centre, rho = radius of the ball the shells are cut to.
template <class T>
struct ShellFrame {
  T sx, sy, sz;
  T ex, ey, ez, ux, uy, uz, vx, vy, vz;
  T D, rho;
};

// The part of the shell |r − rˢ| = R inside the ball: polar angles θ ∈ [0, theta_max] about e,
// cut into n_theta rings of equal Δθ; ring i into n_phi(i) patches of equal Δφ.
template <class T>
struct ShellCap {
  int n_theta;  // 0: the shell misses the ball
  T R, theta_max, h;
};

template <class T>
TOMO_HD ShellCap<T> shell_cap(const ShellFrame<T>& f, T R, T h) {
  ShellCap<T> c{0, R, T(0), h};
  if (!(R > T(0)) || R < f.D - f.rho || R > f.D + f.rho) return c;
  T cmin = (f.D > T(0)) ? (R * R + f.D * f.D - f.rho * f.rho) / (T(2) * R * f.D) : T(-1);
  if (R <= f.rho - f.D) cmin = T(-1);  // transducer inside the ball and shell wholly inside
  cmin = cmin < T(-1) ? T(-1) : (cmin > T(1) ? T(1) : cmin);
  c.theta_max = m_acos(cmin);
  const int n = static_cast<int>(m_ceil(R * c.theta_max / h));
  c.n_theta = n < 1 ? 1 : n;
  return c;
}

// Ring i of a cap: its patch count, the patches' area (exact band area / n_phi) and the
// sine/cosine of its mid polar angle.
template <class T>
struct ShellRing {
  int n_phi;
  T area, sin_t, cos_t;
};

template <class T>
TOMO_HD ShellRing<T> shell_ring(const ShellCap<T>& c, int i) {
  const T dth = c.theta_max / T(c.n_theta);
  T sa, ca, sb, cb, sm, cm;
  m_sincos(T(i) * dth, &sa, &ca);
  m_sincos(T(i + 1) * dth, &sb, &cb);
  m_sincos((T(i) + T(0.5)) * dth, &sm, &cm);
  int n = static_cast<int>(m_ceil(T(2) * kPi<T> * c.R * sm / c.h));
  n = n < 1 ? 1 : n;
  ShellRing<T> r{n, c.R * c.R * (ca - cb) * T(2) * kPi<T> / T(n), sm, cm};
  return r;
}

// Walks the patches of ring `r` in order of azimuth φ_j = (j + ½)·2π/n_phi, calling
// f(x, y, z) at each. cos/sin φ advance by a rotation (one sincos per ring, not per patch):
// the drift after n steps is ~n·ε, below 1e-12 in double and 1e-4 in float for n < 10⁴.
template <class T, class F>
TOMO_HD void shell_ring_walk(const ShellFrame<T>& f, const ShellCap<T>& c, const ShellRing<T>& r, F&& visit) {
  T sd, cd, sp, cp;
  const T dphi = T(2) * kPi<T> / T(r.n_phi);
  m_sincos(dphi, &sd, &cd);
  m_sincos(T(0.5) * dphi, &sp, &cp);
  const T a = c.R * r.cos_t, b = c.R * r.sin_t;
  const T cx = f.sx + a * f.ex, cy = f.sy + a * f.ey, cz = f.sz + a * f.ez;
  for (int j = 0; j < r.n_phi; ++j) {
    const T bu = b * cp, bv = b * sp;
    visit(cx + bu * f.ux + bv * f.vx, cy + bu * f.uy + bv * f.vy, cz + bu * f.uz + bv * f.vz);
    const T c2 = cp * cd - sp * sd;
    sp = sp * cd + cp * sd;
    cp = c2;
  }
}

// Sine and cosine of patch j's azimuth φ_j = (j + ½)·2π/n_phi on a ring of n_phi patches.
template <class T>
TOMO_HD void shell_azimuth(int j, int n_phi, T* sp, T* cp) {
  m_sincos((T(j) + T(0.5)) * T(2) * kPi<T> / T(n_phi), sp, cp);
}

// World position of the patch of ring `r` at the azimuth whose sine and cosine are sp, cp.
template <class T>
TOMO_HD void shell_point_at(const ShellFrame<T>& f, const ShellCap<T>& c, const ShellRing<T>& r, T sp, T cp, T* x,
                            T* y, T* z) {
  const T a = c.R * r.cos_t, b = c.R * r.sin_t * cp, d = c.R * r.sin_t * sp;
  *x = f.sx + a * f.ex + b * f.ux + d * f.vx;
  *y = f.sy + a * f.ey + b * f.uy + d * f.vy;
  *z = f.sz + a * f.ez + b * f.uz + d * f.vz;
}

// World position of patch j of ring `r` (azimuth φ_j = (j + ½)·2π/n_phi), computed directly:
// for threads that take one patch each; shell_ring_walk visits the same points in order.
template <class T>
TOMO_HD void shell_point(const ShellFrame<T>& f, const ShellCap<T>& c, const ShellRing<T>& r, int j, T* x,
                             T* y, T* z) {
  T sp, cp;
  shell_azimuth(j, r.n_phi, &sp, &cp);
  shell_point_at(f, c, r, sp, cp, x, y, z);
}

// g[q, k] = Σ_patches area·Ā(r_patch) for the shell of radius R (H_srt, one data sample).
template <class T>
TOMO_HD T srt_sample(const ShellFrame<T>& f, const GridParams<T>& g, const T* alpha, T R, T h) {
  const ShellCap<T> c = shell_cap(f, R, h);
  T sum = T(0);
  for (int i = 0; i < c.n_theta; ++i) {
    const ShellRing<T> r = shell_ring(c, i);
    T ring = T(0);
    shell_ring_walk(f, c, r, [&](T x, T y, T z) {
      trilinear_visit(g, x, y, z, [&](int n, T w) { ring += w * alpha[n]; });
    });
    sum += r.area * ring;
  }
  return sum;
}

// H_srtᵀ of one sample: scatter(n, area·weight·value) for every patch and trilinear neighbour
// (the cpu adds into a per-thread image, CUDA atomically).
template <class T, class Scatter>
TOMO_HD void srt_sample_adjoint(const ShellFrame<T>& f, const GridParams<T>& g, T value, T R, T h,
                                    Scatter&& scatter) {
  const ShellCap<T> c = shell_cap(f, R, h);
  for (int i = 0; i < c.n_theta; ++i) {
    const ShellRing<T> r = shell_ring(c, i);
    const T v = r.area * value;
    shell_ring_walk(f, c, r, [&](T x, T y, T z) {
      trilinear_visit(g, x, y, z, [&](int n, T w) { scatter(n, w * v); });
    });
  }
}

// Time axis of H_srt's output: K + 2 samples, index m = k + 1 for k = −1..K, so D has both
// neighbours of every data sample. 1/t is 0 where t ≤ 0 (a shell of radius 0 has no area).
template <class T>
TOMO_HD T inv_time(T t_min, T dt, int k) {
  const T t = t_min + T(k) * dt;
  return t > T(0) ? T(1) / t : T(0);
}

// D ([Wang2013] "Interpolation model"): p_k = c_D·(g_{k+1}/t_{k+1} − g_{k−1}/t_{k−1}),
// c_D = Γ/(8πc₀²Δt) (β/C_p = Γ/c₀²); g has K + 2 samples per transducer (g[m], m = k + 1).
template <class T>
TOMO_HD T d_coefficient(T gruneisen, T c0, T dt) {
  return gruneisen / (T(8) * kPi<T> * c0 * c0 * dt);
}
template <class T>
TOMO_HD T d_sample(const T* g, int k, T t_min, T dt, T cD) {
  return cD * (g[k + 2] * inv_time(t_min, dt, k + 1) - g[k] * inv_time(t_min, dt, k - 1));
}
// Dᵀ: g'[m] (m = k + 1, k = −1..K) = c_D/t_k·(p_{k−1} − p_{k+1}) over the p samples that exist.
template <class T>
TOMO_HD T d_adjoint_sample(const T* p, int K, int m, T t_min, T dt, T cD) {
  const int k = m - 1;
  const T a = (k - 1 >= 0 && k - 1 < K) ? p[k - 1] : T(0);
  const T b = (k + 1 >= 0 && k + 1 < K) ? p[k + 1] : T(0);
  return cD * inv_time(t_min, dt, k) * (a - b);
}

// H_eir: u_k = Σ_{j=0}^{J−1} h_j p_{k−j}; its transpose p_k = Σ_j h_j u_{k+j}.
template <class T>
TOMO_HD T eir_sample(const T* p, int K, const T* h, int J, int k) {
  T s = T(0);
  for (int j = 0; j < J && j <= k; ++j) s += h[j] * p[k - j];
  return s;
}
template <class T>
TOMO_HD T eir_adjoint_sample(const T* u, int K, const T* h, int J, int k) {
  T s = T(0);
  for (int j = 0; j < J && k + j < K; ++j) s += h[j] * u[k + j];
  return s;
}

// FBP weight of transducer q: −dSˢ_q/(πΓc₀RˢΔt) ([Wang2013] "FBP", C_p/β = c₀²/Γ).
template <class T>
TOMO_HD T fbp_weight(T surface, T gruneisen, T c0, T radius, T dt) {
  return -surface / (kPi<T> * gruneisen * c0 * radius * dt);
}
// The fused term of one voxel at distance `dist` from a transducer:
// (1.5 − (k+τ₀)/(k̃+τ₀))·p[k+1] + ((k+1+τ₀)/(k̃+τ₀) − 1.5)·p[k] = Δt[p(t̃)/t̃ + ½(p_{k+1}−p_k)/Δt],
// k̃ = (dist/c₀ − t_min)/Δt, k = ⌊k̃⌋, τ₀ = t_min/Δt; 0 where k or k + 1 is outside 0..K−1.
template <class T>
TOMO_HD T fbp_term(const T* p, int K, T dist, T inv_c0, T t_min, T inv_dt) {
  const T kt = (dist * inv_c0 - t_min) * inv_dt;
  const T kf = m_floor(kt);
  const int k = static_cast<int>(kf);
  if (kt < T(0) || k + 1 >= K) return T(0);
  const T tau0 = t_min * inv_dt;
  const T inv = T(1) / (kt + tau0);
  return (T(1.5) - (kf + tau0) * inv) * p[k + 1] + ((kf + T(1) + tau0) * inv - T(1.5)) * p[k];
}

}  // namespace tomo::oat
