// One history of glpet's Monte-Carlo, shared by the cpu generator (monte_carlo.cpp) and the CUDA
// one (cuda/glpet/monte_carlo.cu): a pair born in the source (a point, or a voxel drawn from the
// activity's CDF through a guide table and a uniform position inside it), an isotropic direction,
// each module pair's two planes intersected, the survival exp(−∫σ_t) from an exact voxel traversal
// (Siddon / Amanatides–Woo). Every draw comes from the history's own CounterRng stream, so both
// forms count the same LORs for the same seed. Plain arrays and IEEE double only: the CUDA form is
// compiled without FMA contraction (cuda/CMakeLists.txt), so only libm's cos, sin and exp can
// differ from the host's in the last bits.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "compute/core/counter_rng.hpp"
#include "compute/core/host_device.hpp"

namespace tomo::glpet::mc {

struct V3 {
  double x, y, z;
};
TOMO_HD double dot(const V3& a, const V3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
TOMO_HD V3 along(const V3& e, const V3& w, double mu) { return {e.x + w.x * mu, e.y + w.y * mu, e.z + w.z * mu}; }

// A detector module: n_a × n_t detectors of pitch_a × pitch_t from `corner` along axis_a, axis_t.
struct Module {
  V3 centre, normal, axis_a, axis_t, corner;
  int n_a, n_t;
  double pitch_a, pitch_t;
};

// A module pair: its two modules' rows in the module table, its atlas offset and size.
struct Pair {
  int module[2];
  std::size_t offset;  // Scanner::lor_offset
  int n_a, n_t;
  TOMO_HD std::size_t lor(int i0, int j0, int i1, int j1) const {  // ModulePair::lor_index
    const std::size_t u = std::size_t(i0) * std::size_t(n_a) + std::size_t(i1),
                      v = std::size_t(j0) * std::size_t(n_t) + std::size_t(j1);
    return offset + v * std::size_t(n_a) * std::size_t(n_a) + u;
  }
};

// A voxel grid (Grid3) and, for σ_t, its values (x fastest).
struct Grid {
  int dims[3];
  double voxel[3], origin[3];  // origin: centre of voxel (0, 0, 0)
};

// Where pairs are born: a point (n == 0), else voxel index[k] with probability ∝ cdf[k] − cdf[k−1].
struct Source {
  V3 point;
  const double* cdf;
  const std::size_t* guide;  // guide[b]: the first k with cdf[k] > b·total/n (n + 1 entries)
  const std::size_t* index;
  std::size_t n;
  double total;
  Grid grid;
};

struct Scene {
  const Module* modules;
  const Pair* pairs;
  int module_count, pair_count;
  const float* sigma;  // nullptr: no attenuation (no draw either)
  Grid sigma_grid;
};

// The first k with cdf[k] > u in [lo, hi) (upper_bound).
TOMO_HD std::size_t upper_bound(const double* cdf, std::size_t lo, std::size_t hi, double u) {
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (cdf[mid] <= u) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// The first k with cdf[k] > u, searched in u's guide bucket and checked; a value the bucket does
// not bracket (rounding at its edges) takes the whole search.
TOMO_HD std::size_t find_voxel(const Source& s, double u) {
  const std::size_t buckets = s.n;
  std::size_t b = std::size_t(u / s.total * double(buckets));
  if (b > buckets - 1) b = buckets - 1;
  std::size_t hi = s.guide[b + 1] + 1;
  if (hi > s.n) hi = s.n;
  const std::size_t k = upper_bound(s.cdf, s.guide[b], hi, u);
  if ((k == 0 || s.cdf[k - 1] <= u) && (k == s.n || s.cdf[k] > u)) return k;
  return upper_bound(s.cdf, 0, s.n, u);
}

TOMO_HD V3 sample_source(const Source& s, CounterRng& rng) {
  if (s.n == 0) return s.point;
  std::size_t k = find_voxel(s, rng.uniform() * s.total);
  if (k > s.n - 1) k = s.n - 1;
  const std::size_t v = s.index[k], nx = std::size_t(s.grid.dims[0]), ny = std::size_t(s.grid.dims[1]);
  const int i = int(v % nx), j = int((v / nx) % ny), l = int(v / (nx * ny));
  const double cx = s.grid.origin[0] + i * s.grid.voxel[0], cy = s.grid.origin[1] + j * s.grid.voxel[1],
               cz = s.grid.origin[2] + l * s.grid.voxel[2];
  const double ux = rng.uniform(), uy = rng.uniform(), uz = rng.uniform();
  return {cx + (ux - 0.5) * s.grid.voxel[0], cy + (uy - 0.5) * s.grid.voxel[1], cz + (uz - 0.5) * s.grid.voxel[2]};
}

// Isotropic: cos θ uniform in [−1, 1], φ uniform in [0, 2π).
TOMO_HD V3 isotropic(CounterRng& rng) {
  const double cz = 2 * rng.uniform() - 1, phi = 2 * 3.14159265358979323846 * rng.uniform();
  const double s2 = 1 - cz * cz, sz = s2 > 0 ? sqrt(s2) : 0.0;
  return {sz * cos(phi), sz * sin(phi), cz};
}

// The line e + μ·w on module m: μ and the detector (i, j); hit = false when it misses.
struct Hit {
  bool hit;
  double mu;
  int i, j;
};
TOMO_HD Hit hit_module(const Module& m, const V3& e, const V3& w) {
  Hit h{false, 0, 0, 0};
  const double dn = dot(w, m.normal);
  if (dn == 0) return h;
  const V3 c{m.centre.x - e.x, m.centre.y - e.y, m.centre.z - e.z};
  h.mu = dot(c, m.normal) / dn;
  const V3 p = along(e, w, h.mu);
  const V3 rel{p.x - m.corner.x, p.y - m.corner.y, p.z - m.corner.z};
  const double a = dot(rel, m.axis_a) / m.pitch_a, t = dot(rel, m.axis_t) / m.pitch_t;
  if (!(a >= 0 && t >= 0 && a < m.n_a && t < m.n_t)) return h;
  h.hit = true;
  h.i = int(a) < m.n_a - 1 ? int(a) : m.n_a - 1;
  h.j = int(t) < m.n_t - 1 ? int(t) : m.n_t - 1;
  return h;
}

// The first kCached (≤ 64) modules' hits of the current history, each computed on first use (a
// ring's module serves several pairs); later modules are intersected per pair: the same values.
template <int kCached>
class HitCache {
  static_assert(kCached >= 1 && kCached <= 64, "one bit of a 64-bit word per cached module");

 public:
  TOMO_HD void reset() { known_ = 0; }
  TOMO_HD const Hit& get(const Scene& sc, int m, const V3& e, const V3& w) {
    if (m >= kCached) return spare_ = hit_module(sc.modules[m], e, w);
    const std::uint64_t bit = std::uint64_t(1) << m;
    if (!(known_ & bit)) hits_[m] = hit_module(sc.modules[m], e, w), known_ |= bit;
    return hits_[m];
  }

 private:
  std::uint64_t known_ = 0;
  Hit hits_[kCached];
  Hit spare_;
};

// ∫ f along the segment a→b (mm · value): Σ over crossed voxels of value × chord length, the
// volume piecewise constant on voxel boxes [centre ± voxel/2].
TOMO_HD double siddon(const float* f, const Grid& g, const V3& pa, const V3& pb) {
  const double a[3] = {pa.x, pa.y, pa.z}, d[3] = {pb.x - pa.x, pb.y - pa.y, pb.z - pa.z};
  double lo[3];
  for (int ax = 0; ax < 3; ++ax) lo[ax] = g.origin[ax] - 0.5 * g.voxel[ax];
  const double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (len == 0) return 0;
  double t0 = 0, t1 = 1;
  for (int ax = 0; ax < 3; ++ax) {
    const double hi = lo[ax] + g.dims[ax] * g.voxel[ax];
    if (d[ax] == 0) {
      if (a[ax] < lo[ax] || a[ax] >= hi) return 0;
      continue;
    }
    double ta = (lo[ax] - a[ax]) / d[ax], tb = (hi - a[ax]) / d[ax];
    if (ta > tb) {
      const double s = ta;
      ta = tb, tb = s;
    }
    t0 = t0 > ta ? t0 : ta;
    t1 = t1 < tb ? t1 : tb;
  }
  if (t0 >= t1) return 0;
  int idx[3], step[3];
  double tmax[3], tdelta[3];
  const double tmid = 0.5 * (t0 + t1), tin = t0 + 1e-9 * (t1 - t0);  // the first voxel: at the entry, nudged inwards
  for (int ax = 0; ax < 3; ++ax) {
    const double p = a[ax] + d[ax] * (tin < tmid ? tin : tmid);
    const int k = int(floor((p - lo[ax]) / g.voxel[ax]));
    idx[ax] = k < 0 ? 0 : (k > g.dims[ax] - 1 ? g.dims[ax] - 1 : k);
    if (d[ax] > 0) {
      step[ax] = 1;
      tmax[ax] = (lo[ax] + (idx[ax] + 1) * g.voxel[ax] - a[ax]) / d[ax];
      tdelta[ax] = g.voxel[ax] / d[ax];
    } else if (d[ax] < 0) {
      step[ax] = -1;
      tmax[ax] = (lo[ax] + idx[ax] * g.voxel[ax] - a[ax]) / d[ax];
      tdelta[ax] = -g.voxel[ax] / d[ax];
    } else {
      step[ax] = 0;
      tmax[ax] = HUGE_VAL;
      tdelta[ax] = 0;
    }
  }
  double sum = 0, t = t0;
  while (t < t1) {
    const int ax = tmax[0] <= tmax[1] ? (tmax[0] <= tmax[2] ? 0 : 2) : (tmax[1] <= tmax[2] ? 1 : 2);
    const double tn = tmax[ax] < t1 ? tmax[ax] : t1;
    sum += (tn - t) * f[std::size_t(idx[0]) +
                        std::size_t(g.dims[0]) * (std::size_t(idx[1]) + std::size_t(g.dims[1]) * std::size_t(idx[2]))];
    t = tn;
    idx[ax] += step[ax];
    tmax[ax] += tdelta[ax];
    if (idx[ax] < 0 || idx[ax] >= g.dims[ax]) break;
  }
  return sum * len;
}

// History h of seed `seed`: count(lor) for every pair it is detected in; geometric and detected
// grow by the pairs whose line hits both modules with the photons flying apart, and by those of
// them that survive attenuation.
template <class Hits, class Count>
TOMO_HD void history(const Scene& sc, const Source& src, std::uint64_t seed, std::uint64_t h, Hits& hits,
                     std::int64_t& geometric, std::int64_t& detected, Count&& count) {
  CounterRng rng(seed, h);
  const V3 e = sample_source(src, rng);
  const V3 w = isotropic(rng);
  hits.reset();
  for (int p = 0; p < sc.pair_count; ++p) {
    const Pair& pair = sc.pairs[p];
    const Hit h0 = hits.get(sc, pair.module[0], e, w);
    if (!h0.hit) continue;
    const Hit h1 = hits.get(sc, pair.module[1], e, w);
    if (!h1.hit) continue;
    if (!(h0.mu * h1.mu < 0)) continue;  // the two photons fly in opposite directions
    ++geometric;
    if (sc.sigma) {
      const double mu = siddon(sc.sigma, sc.sigma_grid, along(e, w, h0.mu), along(e, w, h1.mu));
      if (rng.uniform() >= exp(-mu)) continue;
    }
    ++detected;
    count(pair.lor(h0.i, h0.j, h1.i, h1.j));
  }
}

}  // namespace tomo::glpet::mc
