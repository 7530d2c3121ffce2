// Rays from 3×4 matrices and the trilinear-sampled reference kernels (see ray_model.hpp).
#include "compute/fdk/ray_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace tomo::fdk {
namespace {

using V3 = std::array<double, 3>;

// The 8 trilinear taps of index-space point p: visit(voxel index, weight), taps outside skipped.
template <class Visit>
inline void trilinear_taps(const Grid3& g, const double* p, Visit&& visit) {
  const double fx = std::floor(p[0]), fy = std::floor(p[1]), fz = std::floor(p[2]);
  const double ax = p[0] - fx, ay = p[1] - fy, az = p[2] - fz;
  const long ix = static_cast<long>(fx), iy = static_cast<long>(fy), iz = static_cast<long>(fz);
  const long nx = g.dims[0], ny = g.dims[1], nz = g.dims[2];
  for (int dz = 0; dz < 2; ++dz) {
    const long z = iz + dz;
    if (z < 0 || z >= nz) continue;
    const double wz = dz ? az : 1.0 - az;
    for (int dy = 0; dy < 2; ++dy) {
      const long y = iy + dy;
      if (y < 0 || y >= ny) continue;
      const double wy = wz * (dy ? ay : 1.0 - ay);
      for (int dx = 0; dx < 2; ++dx) {
        const long x = ix + dx;
        if (x < 0 || x >= nx) continue;
        visit(static_cast<std::size_t>((z * ny + y) * nx + x), wy * (dx ? ax : 1.0 - ax));
      }
    }
  }
}

std::vector<int> all_views(const ConeGeometry& g, std::span<const int> views) {
  if (!views.empty()) return {views.begin(), views.end()};
  std::vector<int> v(g.views());
  for (int n = 0; n < g.views(); ++n) v[n] = n;
  return v;
}

}  // namespace

ViewRays view_rays(const Grid3& grid, const Mat34& P, int view) {
  double m[3][3];
  V3 p4;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) m[r][c] = P.at(r, c);
    p4[r] = P.at(r, 3);
  }
  // Inverse by cofactors: inv[c][r] = cof(r, c) / det.
  double inv[3][3];
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) {
      const int r1 = (r + 1) % 3, r2 = (r + 2) % 3, c1 = (c + 1) % 3, c2 = (c + 2) % 3;
      inv[c][r] = m[r1][c1] * m[r2][c2] - m[r1][c2] * m[r2][c1];
    }
  const double det = m[0][0] * inv[0][0] + m[0][1] * inv[1][0] + m[0][2] * inv[2][0];
  double scale = 0;
  for (auto& row : m)
    for (double e : row) scale = std::max(scale, std::abs(e));
  if (!(std::abs(det) > 1e-12 * scale * scale * scale))
    throw InputError(str_cat("projector: matrix ", view, " is degenerate (its left 3x3 part is singular: no source)"));
  for (auto& row : inv)
    for (double& e : row) e /= det;
  V3 src{};
  for (int r = 0; r < 3; ++r) src[r] = -(inv[r][0] * p4[0] + inv[r][1] * p4[1] + inv[r][2] * p4[2]);
  // Depth of the grid's centre: the volume must lie at t > 0 along d = M⁻¹(u, v, 1); else flip.
  V3 centre{};
  for (int a = 0; a < 3; ++a) centre[a] = grid.origin_mm[a] + 0.5 * (grid.dims[a] - 1) * grid.voxel_mm[a];
  const double w = m[2][0] * centre[0] + m[2][1] * centre[1] + m[2][2] * centre[2] + p4[2];
  if (!(std::abs(w) > 0))
    throw InputError(str_cat("projector: matrix ", view, " puts the volume's centre in its source plane"));
  const double sign = w > 0 ? 1.0 : -1.0;
  ViewRays r;
  for (int a = 0; a < 3; ++a) {
    const double vox = grid.voxel_mm[a];
    r.base[a] = (src[a] - grid.origin_mm[a]) / vox;
    r.du_mm[a] = sign * inv[a][0];
    r.dv_mm[a] = sign * inv[a][1];
    r.d1_mm[a] = sign * inv[a][2];
    r.du[a] = r.du_mm[a] / vox;
    r.dv[a] = r.dv_mm[a] / vox;
    r.d1[a] = r.d1_mm[a] / vox;
  }
  return r;
}

RaySamples ray_samples(const ViewRays& r, const Grid3& grid, double u, double v, double step) {
  V3 d, dmm;
  for (int a = 0; a < 3; ++a) {
    d[a] = r.du[a] * u + r.dv[a] * v + r.d1[a];
    dmm[a] = r.du_mm[a] * u + r.dv_mm[a] * v + r.d1_mm[a];
  }
  // The trilinear volume is non-zero for index coordinates in (−1, n) on each axis.
  double t0 = 0.0, t1 = std::numeric_limits<double>::infinity();
  for (int a = 0; a < 3; ++a) {
    const double lo = -1.0, hi = grid.dims[a];
    if (d[a] == 0.0) {
      if (!(r.base[a] > lo && r.base[a] < hi)) return {};
      continue;
    }
    double ta = (lo - r.base[a]) / d[a], tb = (hi - r.base[a]) / d[a];
    if (ta > tb) std::swap(ta, tb);
    t0 = std::max(t0, ta);
    t1 = std::min(t1, tb);
  }
  if (!(t1 > t0)) return {};
  const double per_t = std::sqrt(dmm[0] * dmm[0] + dmm[1] * dmm[1] + dmm[2] * dmm[2]);
  const double length = (t1 - t0) * per_t;
  RaySamples s;
  s.count = std::max(1, static_cast<int>(std::ceil(length / step)));
  const double dt = (t1 - t0) / s.count;
  for (int a = 0; a < 3; ++a) {
    s.start[a] = r.base[a] + (t0 + 0.5 * dt) * d[a];
    s.step[a] = dt * d[a];
  }
  s.weight_mm = dt * per_t;
  return s;
}

double step_mm(const Grid3& grid, const ProjectorOptions& o) {
  const double vox = std::min({grid.voxel_mm[0], grid.voxel_mm[1], grid.voxel_mm[2]});
  return o.step_voxels * vox;
}

void forward_reference(const ConeGeometry& g, double step, const double* x, double* y, std::span<const int> views) {
  const std::vector<int> list = all_views(g, views);
  std::vector<ViewRays> rays(list.size());
  for (std::size_t k = 0; k < list.size(); ++k) rays[k] = view_rays(g.grid, g.matrices.at(list[k]), list[k]);
  const int nv = static_cast<int>(list.size());
#pragma omp parallel for collapse(2) schedule(dynamic, 4)
  for (int k = 0; k < nv; ++k)
    for (int j = 0; j < g.sy; ++j)
      for (int i = 0; i < g.sx; ++i) {
        const RaySamples s = ray_samples(rays[k], g.grid, i, j, step);
        double sum = 0.0;
        double p[3] = {s.start[0], s.start[1], s.start[2]};
        for (int n = 0; n < s.count; ++n) {
          trilinear_taps(g.grid, p, [&](std::size_t idx, double w) { sum += w * x[idx]; });
          for (int a = 0; a < 3; ++a) p[a] += s.step[a];
        }
        y[k * g.image_size() + static_cast<std::size_t>(j) * g.sx + i] = sum * s.weight_mm;
      }
}

void back_reference(const ConeGeometry& g, double step, const double* y, double* x, std::span<const int> views) {
  const std::vector<int> list = all_views(g, views);
  std::vector<ViewRays> rays(list.size());
  for (std::size_t k = 0; k < list.size(); ++k) rays[k] = view_rays(g.grid, g.matrices.at(list[k]), list[k]);
  const int nv = static_cast<int>(list.size());
  const std::size_t voxels = g.grid.count();
  std::fill(x, x + voxels, 0.0);
  // Rays scatter into shared voxels: each thread sums into its own volume (as many threads as
  // 512 MiB of such copies allow), then the copies are added.
  int threads = 1;
#ifdef _OPENMP
  threads = std::clamp(static_cast<int>((512.0 * (1 << 20)) / (8.0 * voxels)), 1, omp_get_max_threads());
#endif
#pragma omp parallel num_threads(threads)
  {
    std::vector<double> local(voxels, 0.0);
#pragma omp for collapse(2) schedule(dynamic, 4)
    for (int k = 0; k < nv; ++k)
      for (int j = 0; j < g.sy; ++j)
        for (int i = 0; i < g.sx; ++i) {
          const double val = y[k * g.image_size() + static_cast<std::size_t>(j) * g.sx + i];
          if (val == 0.0) continue;
          const RaySamples s = ray_samples(rays[k], g.grid, i, j, step);
          const double c = val * s.weight_mm;
          double p[3] = {s.start[0], s.start[1], s.start[2]};
          for (int n = 0; n < s.count; ++n) {
            trilinear_taps(g.grid, p, [&](std::size_t idx, double w) { local[idx] += w * c; });
            for (int a = 0; a < 3; ++a) p[a] += s.step[a];
          }
        }
#pragma omp critical
    for (std::size_t v = 0; v < voxels; ++v) x[v] += local[v];
  }
}

}  // namespace tomo::fdk
