// Siddon-style exact voxel traversal: clip the segment to the grid box, then step
// from voxel to voxel at the nearest boundary crossing, summing value × length.
#include "compute/glpet/siddon.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tomo::glpet {

double siddon_line_integral(const VolumeF& f, const Vec3& a, const Vec3& b) {
  const Grid3& g = f.grid;
  Vec3 d, lo;
  for (int ax = 0; ax < 3; ++ax) {
    d[ax] = b[ax] - a[ax];
    lo[ax] = g.origin_mm[ax] - 0.5 * g.voxel_mm[ax];
  }
  const double len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (len == 0) return 0;
  double t0 = 0, t1 = 1;
  for (int ax = 0; ax < 3; ++ax) {
    const double hi = lo[ax] + g.dims[ax] * g.voxel_mm[ax];
    if (d[ax] == 0) {
      if (a[ax] < lo[ax] || a[ax] >= hi) return 0;
      continue;
    }
    double ta = (lo[ax] - a[ax]) / d[ax], tb = (hi - a[ax]) / d[ax];
    if (ta > tb) std::swap(ta, tb);
    t0 = std::max(t0, ta);
    t1 = std::min(t1, tb);
  }
  if (t0 >= t1) return 0;
  int idx[3], step[3];
  double tmax[3], tdelta[3];
  const double tmid = 0.5 * (t0 + t1);  // pick the first voxel robustly: at the entry, nudged inwards
  for (int ax = 0; ax < 3; ++ax) {
    const double p = a[ax] + d[ax] * std::min(t0 + 1e-9 * (t1 - t0), tmid);
    idx[ax] = std::clamp(int(std::floor((p - lo[ax]) / g.voxel_mm[ax])), 0, g.dims[ax] - 1);
    if (d[ax] > 0) {
      step[ax] = 1;
      tmax[ax] = (lo[ax] + (idx[ax] + 1) * g.voxel_mm[ax] - a[ax]) / d[ax];
      tdelta[ax] = g.voxel_mm[ax] / d[ax];
    } else if (d[ax] < 0) {
      step[ax] = -1;
      tmax[ax] = (lo[ax] + idx[ax] * g.voxel_mm[ax] - a[ax]) / d[ax];
      tdelta[ax] = -g.voxel_mm[ax] / d[ax];
    } else {
      step[ax] = 0;
      tmax[ax] = std::numeric_limits<double>::infinity();
      tdelta[ax] = 0;
    }
  }
  double sum = 0, t = t0;
  while (t < t1) {
    const int ax = tmax[0] <= tmax[1] ? (tmax[0] <= tmax[2] ? 0 : 2) : (tmax[1] <= tmax[2] ? 1 : 2);
    const double tn = std::min(tmax[ax], t1);
    sum += (tn - t) * f.data[g.index(idx[0], idx[1], idx[2])];
    t = tn;
    idx[ax] += step[ax];
    tmax[ax] += tdelta[ax];
    if (idx[ax] < 0 || idx[ax] >= g.dims[ax]) break;
  }
  return sum * len;
}

}  // namespace tomo::glpet
