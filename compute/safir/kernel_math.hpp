// Math of the safir system matrix shared by the cpu (double) and CUDA (float) backends: the
// predominant-direction label of a line and the slice-wise ray tracing of [Locans2017] eq. (12).
// GLSL has the same arithmetic in shaders/safir/raytrace.glsl.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "compute/core/host_device.hpp"

namespace tomo::safir {

// Labels ([Locans2017] §5.3.1, extended): 0 = the line misses the image box (not processed),
// 1/2/3 = predominant direction x/y/z. The seed has x and y only; a z label lets the slices
// of steep lines (large ring difference) be z planes, so no line steps over voxels (docs/safir.md).
enum : std::uint8_t { kLabelSkip = 0, kLabelX = 1, kLabelY = 2, kLabelZ = 3 };
inline constexpr int kLabelCount = 4;

// The image box: centre of voxel (0,0,0), cubic voxel size, voxel counts; index x fastest.
template <class T>
struct BoxParams {
  T origin[3];
  T voxel;
  int n[3];
  T md;  // m_d of eq. (12) in voxel units (1 by default: weights continuous in p)
};

// Narrows [t0, t1] of the line a + t·d to where its coordinate i lies within one voxel of the
// centres of axis i (d[i] != 0): the slab of the box grown by one voxel.
template <class T>
TOMO_HD void clip_axis(const T a[3], const T d[3], int i, const BoxParams<T>& g, T& t0, T& t1) {
  T ta = (g.origin[i] - g.voxel - a[i]) / d[i], tb = (g.origin[i] + g.n[i] * g.voxel - a[i]) / d[i];
  if (ta > tb) {
    const T s = ta;
    ta = tb;
    tb = s;
  }
  t0 = ta > t0 ? ta : t0;
  t1 = tb < t1 ? tb : t1;
}

// Predominant direction of the line a→b; 0 when a == b or the line passes farther than one
// voxel from every voxel centre (it cannot touch a voxel's 2×2 block).
template <class T>
TOMO_HD int label_line(const T a[3], const T b[3], const BoxParams<T>& g) {
  T d[3], ad[3];
  for (int i = 0; i < 3; ++i) {
    d[i] = b[i] - a[i];
    ad[i] = d[i] < 0 ? -d[i] : d[i];
  }
  if (ad[0] == 0 && ad[1] == 0 && ad[2] == 0) return kLabelSkip;
  // Slab clip of the line (all t) against the box grown by one voxel around the centres.
  T t0 = -1e30f, t1 = 1e30f;
  for (int i = 0; i < 3; ++i) {
    if (ad[i] == 0) {
      if (a[i] <= g.origin[i] - g.voxel || a[i] >= g.origin[i] + g.n[i] * g.voxel) return kLabelSkip;
      continue;
    }
    clip_axis(a, d, i, g, t0, t1);
  }
  if (!(t0 < t1)) return kLabelSkip;
  // Near-ties (lines at 45°, about 1 % of a ring's pairs) are decided by a rule that turns with
  // the scanner (a quarter turn maps the x choice of a line to the y choice of its image, so the
  // symmetric sensitivity stays exact) and with a margin far above float rounding, so float (GPU)
  // and double (cpu) labels agree: z only when clearly steeper; x/y ties by the sign of dx·dy.
  const T tie = (ad[0] + ad[1] + ad[2]) * T(1e-5);
  if (ad[2] > (ad[0] > ad[1] ? ad[0] : ad[1]) + tie) return kLabelZ;
  if (ad[1] > ad[0] + tie) return kLabelY;
  if (ad[0] > ad[1] + tie) return kLabelX;
  return d[0] * d[1] > 0 ? kLabelX : kLabelY;
}

// Walks the planes through the voxel centres perpendicular to the predominant axis m of a
// labelled line; in each, the intersection p and the 2×2 block of voxel centres around it
// (the voxel whose lower corner-centre is at or below p, and its +u/+w neighbours) get
//   a_ij = (m_d − |p − v_j| / voxel) · (|d| / |d_m|)        ([Locans2017] eq. (12), in voxel units,
// times the path length per slice so oblique lines weigh as long as they are). visit(index, a)
// is called for every weight > 0 of an in-image voxel (weights <= 0 are not used). With m_d <= 1
// the block holds every voxel within m_d of p, so which block is taken does not matter.
template <class T, class F>
TOMO_HD void walk_line(const T a[3], const T b[3], int label, const BoxParams<T>& g, F&& visit) {
  if (label == kLabelSkip) return;
  const int m = label - 1, u = m == 0 ? 1 : 0, w = m == 2 ? 1 : 2;
  const T d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const T inv_v = T(1) / g.voxel;
  const T inv_dm = T(1) / d[m];
  const T scale = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) * (d[m] < 0 ? -inv_dm : inv_dm);
  // Slices whose p can lie within one voxel of the u and w centre ranges.
  T t0 = -1e30f, t1 = 1e30f;
  const int others[2] = {u, w};
  for (int q = 0; q < 2; ++q)
    if (d[others[q]] != 0) clip_axis(a, d, others[q], g, t0, t1);
  T km0 = (a[m] + t0 * d[m] - g.origin[m]) * inv_v, km1 = (a[m] + t1 * d[m] - g.origin[m]) * inv_v;
  if (km0 > km1) {
    const T s = km0;
    km0 = km1;
    km1 = s;
  }
  const int k0 = km0 < 0 ? 0 : (km0 > T(g.n[m]) ? g.n[m] : int(ceil(km0)));
  const int k1 = km1 >= T(g.n[m] - 1) ? g.n[m] - 1 : (km1 < 0 ? -1 : int(floor(km1)));
  const int stride[3] = {1, g.n[0], g.n[0] * g.n[1]};
  for (int k = k0; k <= k1; ++k) {
    const T t = (g.origin[m] + k * g.voxel - a[m]) * inv_dm;
    const T fu = (a[u] + t * d[u] - g.origin[u]) * inv_v;
    const T fw = (a[w] + t * d[w] - g.origin[w]) * inv_v;
    const int iu = int(floor(fu)), iw = int(floor(fw));
    for (int du = 0; du < 2; ++du) {
      const int ju = iu + du;
      if (ju < 0 || ju >= g.n[u]) continue;
      const T eu = fu - T(ju);
      for (int dw = 0; dw < 2; ++dw) {
        const int jw = iw + dw;
        if (jw < 0 || jw >= g.n[w]) continue;
        const T ew = fw - T(jw);
        const T weight = (g.md - sqrt(eu * eu + ew * ew)) * scale;
        if (weight > 0) visit(k * stride[m] + ju * stride[u] + jw * stride[w], weight);
      }
    }
  }
}

// The tiled CUDA pass (cuda/safir/kernels.cu) stores each labelled line once per window as a
// 16-byte record: in the slice k of the main axis m its intersection is (fu, fw) =
// (cu + (k − kc)·su, cw + (k − kc)·sw) in voxel units of the other two axes, kc = n_m / 2 (so the
// float rounding is that of a coordinate inside the image, as in walk_line), su, sw the slopes.
// The label is not stored: the events are sorted by label, so a block knows it.
template <class T>
struct LineRecord {
  T cu, su, cw, sw;
};

// Axes of a labelled line: m main (the slices), u and w the other two (u < w).
struct WalkAxes {
  int m, u, w;
};
TOMO_HD WalkAxes walk_axes(int label) {
  const int m = label - 1;
  return {m, m == 0 ? 1 : 0, m == 2 ? 1 : 2};
}

// The record of a labelled line a→b (label != 0); computed in double, stored in float on the GPU.
template <class T>
TOMO_HD LineRecord<T> line_record(const T a[3], const T b[3], int label, const BoxParams<T>& g) {
  const WalkAxes x = walk_axes(label);
  const T d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const int kc = g.n[x.m] / 2;
  const T t = (g.origin[x.m] + kc * g.voxel - a[x.m]) / d[x.m];
  return {(a[x.u] + t * d[x.u] - g.origin[x.u]) / g.voxel, d[x.u] / d[x.m], (a[x.w] + t * d[x.w] - g.origin[x.w]) / g.voxel,
          d[x.w] / d[x.m]};
}

// Narrows the slices [k_lo, k_hi] to those where c + (k − kc)·s lies in [lo − 1, hi] (where a
// 2×2 block around the intersection can reach cells lo..hi−1), with one slice of margin so float
// rounding never drops a slice; the per-cell checks of walk_record decide exactly.
template <class T>
TOMO_HD void clip_slices(T c, T s, int kc, int lo, int hi, int& k_lo, int& k_hi) {
  if (s == 0) {
    if (!(c >= T(lo - 1) && c <= T(hi))) k_hi = k_lo - 1;
    return;
  }
  T ka = kc + (T(lo - 1) - c) / s, kb = kc + (T(hi) - c) / s;
  if (ka > kb) {
    const T q = ka;
    ka = kb;
    kb = q;
  }
  if (!(ka < T(k_hi) + 2)) k_hi = k_lo - 1;  // also NaN
  else if (ka > T(k_lo)) k_lo = int(floor(ka)) - 1 > k_lo ? int(floor(ka)) - 1 : k_lo;
  if (!(kb > T(k_lo) - 2)) k_hi = k_lo - 1;
  else if (kb < T(k_hi)) k_hi = int(ceil(kb)) + 1 < k_hi ? int(ceil(kb)) + 1 : k_hi;
}

// A tile [lo, hi) (image voxel indices per axis, local index Σ (i − lo) · stride) as walk_record
// sees it for one label: in the line's axes m, u, w, with the records' centre slice kc. Built once
// per tile (GPU: once per block), so the walk indexes no array by the runtime axis.
struct TileSpan {
  int lo_m, hi_m, lo_u, hi_u, lo_w, hi_w, st_m, st_u, st_w, kc;
};
TOMO_HD TileSpan tile_span(int label, const int n[3], const int lo[3], const int hi[3], const int stride[3]) {
  const WalkAxes x = walk_axes(label);
  return {lo[x.m], hi[x.m], lo[x.u], hi[x.u], lo[x.w], hi[x.w], stride[x.m], stride[x.u], stride[x.w], n[x.m] / 2};
}

// The weights of eq. (12) of a recorded line inside a tile: visit(local index, a) for every
// weight > 0, the same set and (up to rounding) the same weights as walk_line restricted to the
// tile, so the tiles of a partition of the image together give walk_line. Slices in increasing k.
template <class T, class F>
TOMO_HD void walk_record(const LineRecord<T>& r, T md, const TileSpan& t, F&& visit) {
  int k0 = t.lo_m, k1 = t.hi_m - 1;
  clip_slices(r.cu, r.su, t.kc, t.lo_u, t.hi_u, k0, k1);
  clip_slices(r.cw, r.sw, t.kc, t.lo_w, t.hi_w, k0, k1);
  if (k0 > k1) return;
  const T scale = sqrt(T(1) + r.su * r.su + r.sw * r.sw);
  for (int k = k0; k <= k1; ++k) {
    const T dk = T(k - t.kc);
    const T fu = r.cu + dk * r.su, fw = r.cw + dk * r.sw;
    const int iu = int(floor(fu)), iw = int(floor(fw));
    const int base = (k - t.lo_m) * t.st_m;
    for (int du = 0; du < 2; ++du) {
      const int ju = iu + du;
      if (ju < t.lo_u || ju >= t.hi_u) continue;
      const T eu = fu - T(ju);
      for (int dw = 0; dw < 2; ++dw) {
        const int jw = iw + dw;
        if (jw < t.lo_w || jw >= t.hi_w) continue;
        const T ew = fw - T(jw);
        const T weight = (md - sqrt(eu * eu + ew * ew)) * scale;
        if (weight > 0) visit(base + (ju - t.lo_u) * t.st_u + (jw - t.lo_w) * t.st_w, weight);
      }
    }
  }
}

// Tile shape of a label for the tiled pass: whole planes across the main axis when one fits in
// `cap` voxels (the default image: 90 × 50 or 90 × 90 voxels per plane), as many planes as fit;
// otherwise one plane cut along w, then u. Returns the tile extent per image axis.
inline void tile_extent(const int n[3], int label, long long cap, int ext[3]) {
  const WalkAxes x = walk_axes(label);
  cap = cap < 1 ? 1 : cap;
  ext[x.u] = n[x.u];
  ext[x.w] = n[x.w];
  const long long plane = static_cast<long long>(n[x.u]) * n[x.w];
  if (plane <= cap) {
    const long long planes = cap / plane;
    ext[x.m] = planes < n[x.m] ? static_cast<int>(planes) : n[x.m];
    return;
  }
  ext[x.m] = 1;
  if (n[x.u] <= cap) {
    ext[x.w] = static_cast<int>(cap / n[x.u]);
  } else {
    ext[x.w] = 1;
    ext[x.u] = static_cast<int>(cap);
  }
}

// The work groups of one label in a tiled pass: its sorted events [begin, end) in chunks of
// `chunk`, times the tiles (extent `ext` per image axis, `tiles` per axis); blocks = chunks × tiles.
struct LabelTiles {
  unsigned long long begin = 0, end = 0, chunk = 1;
  int ext[3] = {1, 1, 1}, tiles[3] = {1, 1, 1};
  int blocks = 0;
};

struct TilePlan {
  LabelTiles label[3];  // predominant axis x, y, z (labels 1, 2, 3)
  int blocks = 0;       // all labels, one launch
  int smem_floats = 0;  // the largest tile
};

// Tiles of at most `cap` voxels; chunks as large as `target_blocks` groups allow, never below
// `min_chunk` events (each group flushes its whole tile once) nor so small that the group count
// overflows an int. counts: the window's label histogram [skip, x, y, z], sorted in that order.
inline TilePlan plan_tiles(const int n[3], const std::size_t counts[4], long long cap, double target_blocks,
                           std::size_t min_chunk) {
  TilePlan p;
  unsigned long long at = counts[0];
  double work = 0;  // event × tile visits of a pass
  long long tiles[3] = {0, 0, 0};
  for (int l = 0; l < 3; ++l) {
    LabelTiles& t = p.label[l];
    t.begin = at;
    t.end = at + counts[l + 1];
    at = t.end;
    tile_extent(n, l + 1, cap, t.ext);
    tiles[l] = 1;
    for (int i = 0; i < 3; ++i) {
      t.tiles[i] = (n[i] + t.ext[i] - 1) / t.ext[i];
      tiles[l] *= t.tiles[i];
    }
    const int size = t.ext[0] * t.ext[1] * t.ext[2];
    p.smem_floats = size > p.smem_floats ? size : p.smem_floats;
    work += double(counts[l + 1]) * double(tiles[l]);
  }
  double chunk = std::ceil(work / (target_blocks < 1 ? 1 : target_blocks));
  chunk = chunk < double(min_chunk) ? double(min_chunk) : chunk;
  chunk = chunk < std::ceil(work / 1e9) ? std::ceil(work / 1e9) : chunk;
  chunk = chunk < 1 ? 1 : chunk;
  for (int l = 0; l < 3; ++l) {
    LabelTiles& t = p.label[l];
    t.chunk = static_cast<unsigned long long>(chunk);
    const unsigned long long events = t.end - t.begin, chunks = (events + t.chunk - 1) / t.chunk;
    t.blocks = static_cast<int>(chunks * tiles[l]);
    p.blocks += t.blocks;
  }
  return p;
}

}  // namespace tomo::safir
