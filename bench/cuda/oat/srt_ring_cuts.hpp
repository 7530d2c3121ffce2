// Bench-only ways to cut a ring's azimuths to a gather tile, tighter than the product's line cut
// (cuda/oat/srt_gather.hpp LineCut), as policies for the gather kernel (srt_gather.cuh):
// CircleCut cuts every arc by the ring itself against each axis's slab; RefinedCut repeats the
// line cut with the sagitta of the arc left. Both lost on one H200 (docs/perf/oat.md): their
// bounds cost more than the candidate visits they save. Plain TOMO_HD templates, so that the host
// emulation tests (tests/oat/srt_gather_model_test.cpp) run the very arithmetic.
#pragma once
#include "cuda/oat/srt_gather.hpp"

namespace tomo::oat {

// Ring i's point at azimuth φ_c + δ relative to the transducer is a·e + ρ(cos δ·w0 + sin δ·w1);
// along axis k that is a·e_k + ρ·A_k·cos(δ − β_k). Its slab [lo_k, hi_k] (widened by `tol`)
// holds it iff |δ − β_k| (mod 2π) ∈ [α1, α2]: two arcs. [*d_lo, *d_hi] (relative to φ_c, within
// [−π, π]) becomes the hull of its intersection with those arcs, widened by `slack` rad; false:
// empty. Meant as a superset of the exact set; the slacks held on the host, not on the device.
template <class T>
TOMO_HD bool circle_cut(T a_k, T rho, T w0, T w1, T lo_k, T hi_k, T tol, T slack, T* d_lo, T* d_hi) {
  const T amp = rho * m_sqrt(w0 * w0 + w1 * w1);
  const T lo = lo_k - tol - a_k, hi = hi_k + tol - a_k;
  if (lo > amp || hi < -amp) return false;
  if (lo <= -amp && hi >= amp) return true;  // the whole circle inside the slab
  const T pi = kPi<T>, two_pi = T(2) * kPi<T>;
  const T a1 = hi >= amp ? T(0) : m_acos(clamp1(hi / amp)), a2 = lo <= -amp ? pi : m_acos(clamp1(lo / amp));
  const T beta = m_atan2(w1, w0);
  const T arcs[2][2] = {{beta + a1 - slack, beta + a2 + slack}, {beta - a2 - slack, beta - a1 + slack}};
  T out_lo = T(1e30), out_hi = T(-1e30);
  for (int c = 0; c < 2; ++c) {
    // The arc's copies c + 2πn that can overlap [d_lo, d_hi] (both of length ≤ 2π + slack).
    const int n0 = static_cast<int>(m_floor((*d_lo - arcs[c][1]) / two_pi));
    for (int n = n0; n <= n0 + 3; ++n) {
      const T s0 = arcs[c][0] + static_cast<T>(n) * two_pi, s1 = arcs[c][1] + static_cast<T>(n) * two_pi;
      const T l = s0 > *d_lo ? s0 : *d_lo, h = s1 < *d_hi ? s1 : *d_hi;
      if (l <= h) {
        out_lo = l < out_lo ? l : out_lo;
        out_hi = h > out_hi ? h : out_hi;
      }
    }
  }
  if (out_lo > out_hi) return false;
  *d_lo = out_lo, *d_hi = out_hi;
  return true;
}

// Every arc cut by the ring itself, slab by slab (circle_cut), also the long arcs near the
// transducer's axis that the line cut keeps whole. Its fp32 device arithmetic dropped patches
// that the host emulation keeps (rel. L2 1.15e-5 against the scatter on the GPU).
struct CircleCut {
  template <class T>
  TOMO_HD static RingRange ring(const ShellFrame<T>& f, const GatherView<T>& v, const GatherShell<T>& s,
                                const ShellRing<T>& r, int i) {
    const RingArc<T> arc = ring_arc(v, s, r, i);
    if (arc.empty) return RingRange{0, 0};
    T d_lo = arc.full ? -kPi<T> : -arc.delta, d_hi = arc.full ? kPi<T> : arc.delta;
    const T rho = s.cap.R * r.sin_t, a = s.cap.R * r.cos_t;
    const T e[3] = {f.ex, f.ey, f.ez}, u[3] = {f.ux, f.uy, f.uz}, w[3] = {f.vx, f.vy, f.vz};
    // fp32 slack: a few ulps of the transducer distance in the slab, 1e-4 rad in the angles.
    const T tol = T(4e-6) * (v.d + v.r), slack = T(1e-4);
    for (int k = 0; k < 3; ++k) {
      const T w0 = v.cos_pc * u[k] + v.sin_pc * w[k], w1 = -v.sin_pc * u[k] + v.cos_pc * w[k];
      if (!circle_cut(a * e[k], rho, w0, w1, v.lo[k], v.hi[k], tol, slack, &d_lo, &d_hi)) return RingRange{0, 0};
    }
    return azimuth_range(v, r, false, d_lo, d_hi);
  }
};

// The line cut, then twice more with the sagitta of the arc left: the ring strays from its
// tangent line by ρ(1 − cos δ) = ρs²/(1 + √(1 − s²)) (s = sin δ), which grows with |δ|, so the
// arc the first cut leaves bounds it more tightly than the arc in the ball. A subset of the line
// cut's azimuths that still holds every patch touching the box.
struct RefinedCut {
  template <class T>
  TOMO_HD static RingRange ring(const ShellFrame<T>& f, const GatherView<T>& v, const GatherShell<T>& s,
                                const ShellRing<T>& r, int i) {
    const RingArc<T> arc = ring_arc(v, s, r, i);
    if (arc.empty) return RingRange{0, 0};
    T d_lo = -arc.delta, d_hi = arc.delta;
    if (!arc.full && arc.q < T(0.5)) {
      const T rho = s.cap.R * r.sin_t, a = s.cap.R * r.cos_t;
      const T sd = T(2) * arc.sq * m_sqrt(T(1) - arc.q);
      T t_lo = -rho * sd, t_hi = rho * sd, sag = T(2) * rho * arc.q;
      for (int pass = 0; pass < 3; ++pass) {
        if (pass > 0) {
          const T tm = (t_hi > -t_lo ? t_hi : -t_lo) / rho;
          const T s2 = tm * tm < T(1) ? tm * tm : T(1);
          sag = rho * s2 / (T(1) + m_sqrt(T(1) - s2));
        }
        if (!line_cut(f, v, a, rho, sag, &t_lo, &t_hi)) return RingRange{0, 0};
      }
      d_lo = m_asin(clamp1(t_lo / rho));
      d_hi = m_asin(clamp1(t_hi / rho));
    }
    return azimuth_range(v, r, arc.full, d_lo, d_hi);
  }
};

}  // namespace tomo::oat
