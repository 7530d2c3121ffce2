// H_srtᵀ as a gather, from the voxel side: which shell patches of transducer q touch a tile of
// voxels, and with which weights. The patches are H_srt's own (kernel_math.hpp: shell_cap, the
// rings of srt_ring below, shell_point), found by bounding them instead of walking every shell:
// the shells whose radius meets the tile's bounding ball, the rings of each shell inside that
// ball, and on each ring the azimuths where it can cross the tile's box. Plain TOMO_HD templates
// so the CUDA kernel (srt_gather.cuh) and a host emulation in the tests run the same arithmetic.
#pragma once
#include "compute/oat/kernel_math.hpp"

namespace tomo::oat {

template <class T>
TOMO_HD T m_asin(T x) {
  if constexpr (sizeof(T) == 4) return asinf(x); else return asin(x);
}
template <class T>
TOMO_HD T m_atan2(T y, T x) {
  if constexpr (sizeof(T) == 4) return atan2f(y, x); else return atan2(y, x);
}
template <class T>
TOMO_HD T clamp1(T x) {
  return x < T(-1) ? T(-1) : (x > T(1) ? T(1) : x);
}

// Ring i of a cap as the H_srt kernels use it: kernel_math shell_ring with the band area written
// 2·sin((i+½)Δθ)·sin(Δθ/2) (cos iΔθ − cos (i+1)Δθ cancels in fp32 on the first rings of a large
// shell). The forward, the scatter and the gather all take their rings from here.
template <class T>
TOMO_HD T half_step_sine(const ShellCap<T>& c) {  // sin(Δθ/2) of the cap's rings
  const T dth = c.theta_max / static_cast<T>(c.n_theta);
  if constexpr (sizeof(T) == 4) return sinf(T(0.5) * dth); else return sin(T(0.5) * dth);
}
template <class T>
TOMO_HD ShellRing<T> srt_ring(const ShellCap<T>& c, int i, T sin_half_step) {
  ShellRing<T> r = shell_ring(c, i);
  r.area = c.R * c.R * (T(2) * r.sin_t * sin_half_step) * T(2) * kPi<T> / static_cast<T>(r.n_phi);
  return r;
}
template <class T>
TOMO_HD ShellRing<T> srt_ring(const ShellCap<T>& c, int i) {
  return srt_ring(c, i, half_step_sine(c));
}

// A tile of voxels [lo, hi) (hi exclusive, inside the grid). A patch adds to one of its voxels iff
// its continuous index f = (x − x0)/Δs has ⌊f⌋ ∈ [lo − 1, hi − 1] on every axis: the patch box
// [x0 + (lo − 1)Δs, x0 + hi·Δs), widened by `margin` for the rounding of the bounds below.
template <class T>
struct GatherTile {
  int lo[3], hi[3];
  T bmin[3], bmax[3];  // world box, margin included
  T c[3], r;           // its bounding ball
};

template <class T>
TOMO_HD GatherTile<T> gather_tile(const GridParams<T>& g, int i0, int j0, int k0, int tx, int ty, int tz, T margin) {
  GatherTile<T> t;
  const int lo[3] = {i0, j0, k0}, n[3] = {g.nx, g.ny, g.nz}, w[3] = {tx, ty, tz};
  const T o[3] = {g.x0, g.y0, g.z0};
  T r2 = T(0);
  for (int a = 0; a < 3; ++a) {
    t.lo[a] = lo[a];
    t.hi[a] = lo[a] + w[a] < n[a] ? lo[a] + w[a] : n[a];
    t.bmin[a] = o[a] + static_cast<T>(t.lo[a] - 1) * g.ds - margin;
    t.bmax[a] = o[a] + static_cast<T>(t.hi[a]) * g.ds + margin;
    t.c[a] = T(0.5) * (t.bmin[a] + t.bmax[a]);
    const T h = T(0.5) * (t.bmax[a] - t.bmin[a]);
    r2 += h * h;
  }
  t.r = m_sqrt(r2);
  return t;
}

// The tile seen from transducer q (frame f): its ball's centre at distance d, polar angle θ_c
// about f.e and azimuth φ_c from f.u towards f.v (kernel_math shell_point's angles); the box
// relative to the transducer.
template <class T>
struct GatherView {
  T d, theta_c, sin_c, phi_c, cos_pc, sin_pc, r;
  T lo[3], hi[3];
};

template <class T>
TOMO_HD GatherView<T> gather_view(const ShellFrame<T>& f, const GatherTile<T>& t) {
  GatherView<T> v;
  const T s[3] = {f.sx, f.sy, f.sz};
  T rel[3];
  for (int a = 0; a < 3; ++a) {
    rel[a] = t.c[a] - s[a];
    v.lo[a] = t.bmin[a] - s[a];
    v.hi[a] = t.bmax[a] - s[a];
  }
  v.d = m_sqrt(rel[0] * rel[0] + rel[1] * rel[1] + rel[2] * rel[2]);
  const T ce = rel[0] * f.ex + rel[1] * f.ey + rel[2] * f.ez;
  const T cu = rel[0] * f.ux + rel[1] * f.uy + rel[2] * f.uz;
  const T cv = rel[0] * f.vx + rel[1] * f.vy + rel[2] * f.vz;
  const T perp = m_sqrt(cu * cu + cv * cv);
  v.theta_c = m_atan2(perp, ce);
  v.sin_c = v.d > T(0) ? perp / v.d : T(0);
  T phi = m_atan2(cv, cu);
  if (phi < T(0)) phi += T(2) * kPi<T>;
  v.phi_c = phi;
  v.cos_pc = perp > T(0) ? cu / perp : T(1);
  v.sin_pc = perp > T(0) ? cv / perp : T(0);
  v.r = t.r;
  return v;
}

// Shell samples m whose radius c₀(t_min + (m − 1)Δt) can meet the ball: [*m_lo, *m_hi] (one
// sample of slack each side; gather_shell tests each radius exactly).
template <class T>
TOMO_HD void gather_shells(const GatherView<T>& v, T c0, T t_min, T dt, int shells, int* m_lo, int* m_hi) {
  const T a = ((v.d - v.r) / c0 - t_min) / dt + T(1), b = ((v.d + v.r) / c0 - t_min) / dt + T(1);
  const T lo = a < T(-1) ? T(-1) : (a > T(shells) ? T(shells) : a);
  const T hi = b < T(-1) ? T(-1) : (b > T(shells) ? T(shells) : b);
  *m_lo = static_cast<int>(m_floor(lo)) < 0 ? 0 : static_cast<int>(m_floor(lo));
  const int h = static_cast<int>(m_ceil(hi));
  *m_hi = h > shells - 1 ? shells - 1 : h;
}

// One shell of radius R against the ball: its cap (kernel_math shell_cap, as H_srt cuts it), the
// rings [i_lo, i_hi] whose polar angle lies within the ball's angular radius γ of θ_c, and
// a4 = 4·sin²(γ/2) = (r² − (R − d)²)/(R·d), the squared chord of γ on the unit sphere.
template <class T>
struct GatherShell {
  ShellCap<T> cap;
  int i_lo, i_hi;  // i_lo > i_hi: no ring
  T a4;
  T sin_half;  // half_step_sine(cap), for srt_ring
};

template <class T>
TOMO_HD GatherShell<T> gather_shell(const ShellFrame<T>& f, const GatherView<T>& v, T R, T h) {
  GatherShell<T> s;
  s.i_lo = 0, s.i_hi = -1;
  s.a4 = T(0);
  s.sin_half = T(0);
  s.cap = shell_cap(f, R, h);
  const T dR = R - v.d;
  if (s.cap.n_theta == 0 || !(R > T(0)) || dR * dR > v.r * v.r) return s;
  s.sin_half = half_step_sine(s.cap);
  s.a4 = (v.r * v.r - dR * dR) / (R * v.d);
  const T gamma = s.a4 >= T(4) ? kPi<T> : T(2) * m_asin(m_sqrt(T(0.25) * s.a4));
  const T dth = s.cap.theta_max / static_cast<T>(s.cap.n_theta);
  const T nt = static_cast<T>(s.cap.n_theta);
  T lo = (v.theta_c - gamma) / dth - T(0.5), hi = (v.theta_c + gamma) / dth - T(0.5);
  lo = lo < T(-1) ? T(-1) : (lo > nt ? nt : lo);
  hi = hi < T(-1) ? T(-1) : (hi > nt ? nt : hi);
  const int il = static_cast<int>(m_ceil(lo)), ih = static_cast<int>(m_floor(hi));
  s.i_lo = il < 0 ? 0 : il;
  s.i_hi = ih > s.cap.n_theta - 1 ? s.cap.n_theta - 1 : ih;
  return s;
}

// The patches of ring `r` (ring i of shell s) that can touch the tile: j = j_lo, j_lo + 1, …
// (mod n_phi), `count` of them. First the arc of the ring inside the ball (chord condition
// 4sin²(Δθ/2) + 4·sin θ·sin θ_c·sin²(Δφ/2) ≤ a4, well conditioned for small angles); then, for
// arcs shorter than a quarter turn, the ring is a line P0 + t·w1 (t = ρ·sin δ, δ = φ − φ_c) off by
// at most its sagitta ρ(1 − cos Δ) along w0, cut to the box widened by that sagitta (slabs).
struct RingRange {
  int j_lo, count;
};

// The arc of ring i inside the tile's ball: δ = φ − φ_c ∈ [−Δ, Δ] with q = sin²(Δ/2); `full`:
// every azimuth (or θ_c undefined: the axis); `empty`: the ring misses the ball.
template <class T>
struct RingArc {
  bool empty, full;
  T q, sq, delta;  // sq = √q
};

template <class T>
TOMO_HD RingArc<T> ring_arc(const GatherView<T>& v, const GatherShell<T>& s, const ShellRing<T>& r, int i) {
  RingArc<T> arc{false, false, T(1), T(1), kPi<T>};
  const T dth = s.cap.theta_max / static_cast<T>(s.cap.n_theta);
  const T half = T(0.5) * ((static_cast<T>(i) + T(0.5)) * dth - v.theta_c);
  T sh, ch;
  m_sincos(half, &sh, &ch);
  const T numer = s.a4 - T(4) * sh * sh;
  if (numer < T(0)) {
    arc.empty = true;
    return arc;
  }
  const T den = T(4) * r.sin_t * v.sin_c;
  arc.full = den <= numer;
  if (!arc.full) {
    arc.q = numer / den;
    arc.sq = m_sqrt(arc.q);
    arc.delta = T(2) * m_asin(arc.sq);
  }
  return arc;
}

// One cut of the ring as the line P0 + t·w1 (t = ρ·sin δ) widened by `sag` per unit of |w0|, to the
// box's slabs: [*t_lo, *t_hi] narrowed; false: nothing left.
template <class T>
TOMO_HD bool line_cut(const ShellFrame<T>& f, const GatherView<T>& v, T a, T rho, T sag, T* t_lo, T* t_hi) {
  const T e[3] = {f.ex, f.ey, f.ez}, u[3] = {f.ux, f.uy, f.uz}, w[3] = {f.vx, f.vy, f.vz};
  for (int k = 0; k < 3; ++k) {
    const T w0 = v.cos_pc * u[k] + v.sin_pc * w[k], w1 = -v.sin_pc * u[k] + v.cos_pc * w[k];
    const T p0 = a * e[k] + rho * w0;
    const T widen = sag * (w0 < T(0) ? -w0 : w0);
    const T lo = v.lo[k] - widen - p0, hi = v.hi[k] + widen - p0;
    if (w1 == T(0)) {
      if (lo > T(0) || hi < T(0)) return false;
      continue;
    }
    T t1 = lo / w1, t2 = hi / w1;
    if (t1 > t2) { const T x = t1; t1 = t2; t2 = x; }
    *t_lo = t1 > *t_lo ? t1 : *t_lo;
    *t_hi = t2 < *t_hi ? t2 : *t_hi;
  }
  return *t_lo <= *t_hi;
}

// The patches whose azimuth lies in φ_c + [d_lo, d_hi] (|d| ≤ π), or every patch when `full`.
template <class T>
TOMO_HD RingRange azimuth_range(const GatherView<T>& v, const ShellRing<T>& r, bool full, T d_lo, T d_hi) {
  RingRange out{0, 0};
  const int n = r.n_phi;
  if (!full) {
    const T dphi = T(2) * kPi<T> / static_cast<T>(n);
    const T lo = (v.phi_c + d_lo) / dphi - T(0.5), hi = (v.phi_c + d_hi) / dphi - T(0.5);
    const int jl = static_cast<int>(m_ceil(lo)), jh = static_cast<int>(m_floor(hi));
    if (jh < jl) return out;
    if (jh - jl + 1 < n) {  // φ_c ∈ [0, 2π), |δ| ≤ π: jl ∈ [−n, 2n)
      out.j_lo = jl < 0 ? jl + n : (jl >= n ? jl - n : jl);
      out.count = jh - jl + 1;
      return out;
    }
  }
  out.j_lo = 0;
  out.count = n;
  return out;
}

// The product's cut: the arc in the ball, and for arcs under a quarter turn the line cut with the
// arc's sagitta. (bench/cuda/oat keeps tighter cuts that lost on the GPU.)
template <class T>
TOMO_HD RingRange gather_ring(const ShellFrame<T>& f, const GatherView<T>& v, const GatherShell<T>& s,
                              const ShellRing<T>& r, int i) {
  const RingArc<T> arc = ring_arc(v, s, r, i);
  if (arc.empty) return RingRange{0, 0};
  T d_lo = -arc.delta, d_hi = arc.delta;
  if (!arc.full && arc.q < T(0.5)) {  // Δ < π/2: sin δ is monotonic on the arc
    const T rho = s.cap.R * r.sin_t;
    const T sd = T(2) * arc.sq * m_sqrt(T(1) - arc.q);  // sin Δ
    T t_lo = -rho * sd, t_hi = rho * sd;
    if (!line_cut(f, v, s.cap.R * r.cos_t, rho, T(2) * rho * arc.q, &t_lo, &t_hi)) return RingRange{0, 0};
    d_lo = m_asin(clamp1(t_lo / rho));
    d_hi = m_asin(clamp1(t_hi / rho));
  }
  return azimuth_range(v, r, arc.full, d_lo, d_hi);
}

// The cut as the gather kernel takes it (srt_gather.cuh): a policy with ring(f, v, s, r, i).
struct LineCut {
  template <class T>
  TOMO_HD static RingRange ring(const ShellFrame<T>& f, const GatherView<T>& v, const GatherShell<T>& s,
                                const ShellRing<T>& r, int i) {
    return gather_ring(f, v, s, r, i);
  }
};

// kernel_math trilinear_visit's arithmetic for one patch at (x, y, z), restricted to the tile's
// voxels: f(local index in the tile, weight) with the tile's row length tx and plane ty; the
// weights are the forward's products wx·wy·wz, in its order.
template <class T, class F>
TOMO_HD void tile_visit(const GridParams<T>& g, const GatherTile<T>& t, int tx, int ty, T x, T y, T z, F&& f) {
  const T inv = T(1) / g.ds;
  const T fx = (x - g.x0) * inv, fy = (y - g.y0) * inv, fz = (z - g.z0) * inv;
  const T bx = m_floor(fx), by = m_floor(fy), bz = m_floor(fz);
  const int i0 = static_cast<int>(bx), j0 = static_cast<int>(by), k0 = static_cast<int>(bz);
  if (i0 < t.lo[0] - 1 || j0 < t.lo[1] - 1 || k0 < t.lo[2] - 1 || i0 >= t.hi[0] || j0 >= t.hi[1] || k0 >= t.hi[2])
    return;
  const T wx[2] = {T(1) - (fx - bx), fx - bx};
  const T wy[2] = {T(1) - (fy - by), fy - by};
  const T wz[2] = {T(1) - (fz - bz), fz - bz};
  // Which of the two voxels along each axis are in the tile (⌊f⌋ ∈ [lo − 1, hi − 1]).
  const bool in_x[2] = {i0 >= t.lo[0], i0 + 1 < t.hi[0]};
  const bool in_y[2] = {j0 >= t.lo[1], j0 + 1 < t.hi[1]};
  const bool in_z[2] = {k0 >= t.lo[2], k0 + 1 < t.hi[2]};
  const int base = (i0 - t.lo[0]) + tx * ((j0 - t.lo[1]) + ty * (k0 - t.lo[2]));
  for (int c = 0; c < 2; ++c) {
    if (!in_z[c]) continue;
    for (int b = 0; b < 2; ++b) {
      if (!in_y[b]) continue;
      for (int a = 0; a < 2; ++a)
        if (in_x[a]) f(base + a + tx * (b + ty * c), wx[a] * wy[b] * wz[c]);
    }
  }
}

// The gather's fixed-point sums (srt_gather.cuh FixedAdd): a term v becomes V = round(v·S) in 64 bits
// and is added to a voxel's two 32-bit words, the low one first; its carry comes from the low
// word's old value. Integer adds commute, so the words end at the exact sum of the V whatever the
// order. S = fixed_scale(Σ|g|, R_max): 2^62/B with B = Σ|g|·4πR_max² bounding a voxel's sum of
// |terms| (a patch's area is at most its shell's, a weight at most 1), so no partial sum reaches
// 2^63; at most 1e30 (data near 1e-30 would overflow a float scale: coarser sums, never wrong
// ones), and rounded down to a power of two, so that v·S is exact and a last-bit change of Σ|g|
// almost never changes S.
struct FixedTerm {
  unsigned lo;
  int hi;
};
TOMO_HD FixedTerm fixed_split(long long v) {
  return {static_cast<unsigned>(v), static_cast<int>(v >> 32)};
}
// What the high word takes after the low word went from `old` to old + lo (mod 2^32).
TOMO_HD int fixed_high_add(const FixedTerm& t, unsigned old) {
  return t.hi + (old + t.lo < old ? 1 : 0);
}
TOMO_HD long long fixed_join(unsigned lo, int hi) {
  return static_cast<long long>((static_cast<unsigned long long>(static_cast<unsigned>(hi)) << 32) | lo);
}
TOMO_HD float fixed_scale(double abs_sum, double r_max) {
  const double b = abs_sum * 4.0 * kPi<double> * r_max * r_max;
  double s = b > 0 ? 4.611686018427387904e18 / b : 1.0;
  s = s < 1e30 ? s : 1e30;
  return static_cast<float>(exp2(floor(log2(s))));  // a power of two: v·S is exact in float
}

// The enumeration margin (mm) for a scene: far above the fp32 error of the bounds (≈ 1e-6 of the
// transducer distance) and far below a voxel.
template <class T>
TOMO_HD T gather_margin(T ds, T max_distance) {
  return T(1e-3) * ds + T(4e-6) * max_distance;
}

}  // namespace tomo::oat
