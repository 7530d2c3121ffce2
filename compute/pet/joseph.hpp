// Joseph's ray-driven line projector ([Joseph1982]) for lines of response given by their two
// end points, non-TOF and with a time-of-flight kernel per line (list mode): the math shared by
// the cpu reference and the CUDA kernels (TOMO_HD).
//
// Convention (the one of parallelproj's joseph3d, so that its users get the same operator):
// - The grid has dims (nx, ny, nz), x fastest in memory (a (z, y, x) NumPy array), voxel sides
//   voxel_mm and the centre of voxel (0, 0, 0) at origin_mm; voxel (i, j, k) is the box of side
//   voxel_mm around origin + (i, j, k)·voxel_mm. The grid's box reaches half a voxel beyond the
//   first and last centres.
// - A line from p1 to p2 (mm) is walked along its dominant axis d, the axis of the largest
//   |p2 − p1| component (ties go to y, then x, then z: parallelproj's rule for arrays in (z, y, x)
//   order). It takes one sample on every plane of voxel centres along d that the segment
//   p1–p2, clipped to the grid's box, crosses: planes ceil(f_in) … floor(f_out), f the
//   entry/exit coordinate along d in voxel units from the first centre.
// - A sample is the bilinear interpolation of the plane at the line's crossing point between
//   the four nearest voxel centres of that plane; voxels outside the grid count as 0.
// - Each sample is weighed by the step length along the line between two planes, in mm:
//   voxel_mm[d] / |cos θ_d| = voxel_mm[d] · |p2 − p1| / |p2_d − p1_d|.
// So the forward projection of an image of ones is the chord length in mm (to within the
// interpolation at the box's border), and the back projection is its exact adjoint.
// parallelproj differs only on measure-zero sets: it skips a plane that the line enters exactly
// on (floor(f_in) + 1) and, when the entry and exit truncate to the same integer, all planes.
#pragma once
#include <cmath>

#include "compute/core/host_device.hpp"

namespace tomo::pet::joseph {

// The grid a line is walked through (x, y, z order for every array).
template <class T>
struct Grid {
  int n[3];          // voxels along x, y, z
  T voxel[3];        // voxel sides (mm)
  T origin[3];       // centre of voxel (0, 0, 0) (mm)
};

// A line's walk: planes first … last along `axis` (none when last < first), the crossing point's
// fractional voxel index along the plane's two other axes a < b at plane `first` (ua, ub) and its
// change per plane (da, db), and the step length in mm (`weight`).
template <class T>
struct Walk {
  int axis = 2;
  int first = 0, last = -1;
  T ua = 0, ub = 0, da = 0, db = 0;
  T weight = 0;
};

// The two in-plane axes of dominant axis d, in increasing order.
TOMO_HD int plane_axis_a(int d) { return d == 0 ? 1 : 0; }
TOMO_HD int plane_axis_b(int d) { return d == 2 ? 1 : 2; }

// The dominant axis of direction (dx, dy, dz), ties as documented above.
template <class T>
TOMO_HD int dominant_axis(const T* dir) {
  const T ax = fabs(dir[0]), ay = fabs(dir[1]), az = fabs(dir[2]);
  if (ay >= az && ay >= ax) return 1;
  if (ax >= az && ax >= ay) return 0;
  return 2;
}

// The walk of the line p1 → p2 through grid g, computed in T (double on the host).
template <class T>
TOMO_HD Walk<T> make_walk(const T* p1, const T* p2, const Grid<T>& g) {
  Walk<T> w;
  const T dir[3] = {p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2]};
  if (dir[0] == T(0) && dir[1] == T(0) && dir[2] == T(0)) return w;
  // The part of the segment (t in [0, 1]) inside the grid's box: slabs per axis.
  T t0 = 0, t1 = 1;
  for (int k = 0; k < 3; ++k) {
    const T lo = g.origin[k] - T(0.5) * g.voxel[k];
    const T hi = lo + T(g.n[k]) * g.voxel[k];
    if (dir[k] == T(0)) {
      if (p1[k] < lo || p1[k] > hi) return w;
      continue;
    }
    const T ta = (lo - p1[k]) / dir[k], tb = (hi - p1[k]) / dir[k];
    const T enter = ta < tb ? ta : tb, leave = ta < tb ? tb : ta;
    if (enter > t0) t0 = enter;
    if (leave < t1) t1 = leave;
  }
  if (t1 < t0) return w;
  const int d = dominant_axis(dir);
  const int a = plane_axis_a(d), b = plane_axis_b(d);
  const T f0 = (p1[d] + t0 * dir[d] - g.origin[d]) / g.voxel[d];
  const T f1 = (p1[d] + t1 * dir[d] - g.origin[d]) / g.voxel[d];
  int first = int(ceil(f0 < f1 ? f0 : f1)), last = int(floor(f0 < f1 ? f1 : f0));
  if (first < 0) first = 0;
  if (last > g.n[d] - 1) last = g.n[d] - 1;
  w.axis = d;
  w.first = first;
  w.last = last;
  if (last < first) return w;
  // Crossing of plane k (centre coordinate origin_d + k·voxel_d) in voxel units along a and b.
  const T inv = T(1) / dir[d];
  const T zk = g.origin[d] + T(first) * g.voxel[d];
  w.ua = (p1[a] + (zk - p1[d]) * dir[a] * inv - g.origin[a]) / g.voxel[a];
  w.ub = (p1[b] + (zk - p1[d]) * dir[b] * inv - g.origin[b]) / g.voxel[b];
  w.da = dir[a] * g.voxel[d] * inv / g.voxel[a];
  w.db = dir[b] * g.voxel[d] * inv / g.voxel[b];
  w.weight = g.voxel[d] * sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]) / fabs(dir[d]);
  return w;
}

// The bilinear taps of one plane sample at fractional indices (u, v) along axes of sizes
// (na, nb) and memory strides (sa, sb) from `base` (the plane's first voxel): visit(index,
// weight) for each of the four corners inside the grid.
template <class T, class Visit>
TOMO_HD void plane_taps(T u, T v, int na, int nb, long long sa, long long sb, long long base, Visit&& visit) {
  const T fu = floor(u), fv = floor(v);
  const int iu = int(fu), iv = int(fv);
  const T wu = u - fu, wv = v - fv;
  const bool u0 = iu >= 0 && iu < na, u1 = iu + 1 >= 0 && iu + 1 < na;
  const bool v0 = iv >= 0 && iv < nb, v1 = iv + 1 >= 0 && iv + 1 < nb;
  const long long at = base + iu * sa + iv * sb;
  if (u0 && v0) visit(at, (T(1) - wu) * (T(1) - wv));
  if (u1 && v0) visit(at + sa, wu * (T(1) - wv));
  if (u0 && v1) visit(at + sb, (T(1) - wu) * wv);
  if (u1 && v1) visit(at + sa + sb, wu * wv);
}

// Every tap of a walk: visit(voxel index, weight in mm) for each plane's in-grid corners.
template <class T, class Visit>
TOMO_HD void walk_taps(const Walk<T>& w, const int* n, Visit&& visit) {
  const long long stride[3] = {1, n[0], (long long)n[0] * n[1]};
  const int d = w.axis, a = plane_axis_a(d), b = plane_axis_b(d);
  for (int k = w.first; k <= w.last; ++k) {
    const T s = T(k - w.first);
    plane_taps(w.ua + s * w.da, w.ub + s * w.db, n[a], n[b], stride[a], stride[b], k * stride[d],
               [&](long long i, T t) { visit(i, t * w.weight); });
  }
}

// Time of flight in list mode: one TOF bin per line, parallelproj's joseph3d_tof_lm convention.
// - The bins are Δ (bin_width) mm long along the line; bin b's centre lies at
//   s_b = (b − (num_bins − 1)/2)·Δ from the midpoint of p1–p2, s counted along p1 → p2, shifted by
//   the centre offset along the dominant axis' increasing direction (parallelproj adds
//   offset·cos θ_d to the dominant coordinate whichever way p1 → p2 runs).
// - A plane sample at s gets the Gaussian of σ integrated over the bin,
//   g(s) = ½ [erf((|s − s_b| + Δ/2)/(√2 σ)) − erf((|s − s_b| − Δ/2)/(√2 σ))],
//   on the planes k_start … k_end whose bin coordinate lies within num_sigmas·σ of s_b (rounded
//   outwards), inside the grid or not; only those inside the walk's planes are sampled.
// - In place of the Joseph step each sample is weighed by Δ / Σ_{k_start..k_end} g(s_k): the
//   kernel renormalised over the truncated window (≈ the step, whose Riemann sum of g is Δ/step).
template <class T>
struct TofParams {
  int bin = 0, num_bins = 1;
  T width = 1, sigma = 1, offset = 0, num_sigmas = 3;
};

// The TOF part of a walk: planes first … last (the walk's planes inside the kernel's window; none
// when last < first), the signed distance (mm) of plane `first` from the bin's centre along the line
// and its change per plane, and the weight that replaces the Joseph step.
template <class T>
struct TofWalk {
  int first = 0, last = -1;
  T x = 0, dx = 0;
  T scale = 0;
};

// The bin-integrated Gaussian g at distance x from the bin's centre; r = 1/(√2 σ), h = Δ/2.
template <class T>
TOMO_HD T tof_kernel(T x, T r, T h) {
  const T a = fabs(x);
  return T(0.5) * (erf((a + h) * r) - erf((a - h) * r));
}

// The TOF walk of line p1 → p2 whose (non-TOF) walk is w, in T (double on the host).
template <class T>
TOMO_HD TofWalk<T> make_tof_walk(const Walk<T>& w, const T* p1, const T* p2, const Grid<T>& g, const TofParams<T>& t) {
  TofWalk<T> tw;
  if (w.last < w.first) return tw;
  const int d = w.axis;
  const T cf = w.weight, cos_d = g.voxel[d] / cf;
  const T sign = p2[d] >= p1[d] ? T(1) : T(-1);
  // Bin coordinate of plane k: u(k) = k·at + bt (bin units; bin b's centre at u = b).
  const T centre = T(0.5) * (p1[d] + p2[d]) - sign * (T(0.5) * T(t.num_bins) - T(0.5)) * t.width * cos_d +
                   t.offset * cos_d;
  const T at = sign * cf / t.width;
  const T bt = (g.origin[d] - centre) / (sign * t.width * cos_d);
  const T reach = sign * t.num_sigmas * t.sigma / t.width;
  const int k0 = int(floor((T(t.bin) - reach - bt) / at));
  const int k1 = int(ceil((T(t.bin) + reach - bt) / at));
  const T r = T(1) / (sqrt(T(2)) * t.sigma), h = T(0.5) * t.width;
  T sum = 0;
  for (int k = k0; k <= k1; ++k) sum += tof_kernel((T(k) * at + bt - T(t.bin)) * t.width, r, h);
  tw.first = k0 > w.first ? k0 : w.first;
  tw.last = k1 < w.last ? k1 : w.last;
  tw.x = (T(tw.first) * at + bt - T(t.bin)) * t.width;
  tw.dx = at * t.width;
  tw.scale = sum > T(0) ? t.width / sum : T(0);
  return tw;
}

// Every tap of a TOF walk: visit(voxel index, weight) with the bilinear weight × g × scale.
template <class T, class Visit>
TOMO_HD void tof_walk_taps(const Walk<T>& w, const TofWalk<T>& tw, T sigma, T width, const int* n, Visit&& visit) {
  const long long stride[3] = {1, n[0], (long long)n[0] * n[1]};
  const int d = w.axis, a = plane_axis_a(d), b = plane_axis_b(d);
  const T r = T(1) / (sqrt(T(2)) * sigma), h = T(0.5) * width;
  for (int k = tw.first; k <= tw.last; ++k) {
    const T s = T(k - w.first);
    const T f = tof_kernel(tw.x + T(k - tw.first) * tw.dx, r, h) * tw.scale;
    plane_taps(w.ua + s * w.da, w.ub + s * w.db, n[a], n[b], stride[a], stride[b], k * stride[d],
               [&](long long i, T t) { visit(i, t * f); });
  }
}

}  // namespace tomo::pet::joseph
