// Rays from 3×4 matrices and the trilinear-sampled reference kernels (see ray_model.hpp).
#include "compute/fdk/ray_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/fdk/kernel_math.hpp"

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

VoxelView voxel_view(const Grid3& grid, const Mat34& P, int view) {
  const ViewRays r = view_rays(grid, P, view);  // the source, and the checks
  VoxelView out;
  for (int a = 0; a < 3; ++a) out.source_mm[a] = grid.origin_mm[a] + r.base[a] * grid.voxel_mm[a];
  // view_rays' direction is sign·M⁻¹(u, v, 1): the sign that puts the volume at t > 0.
  V3 centre{};
  for (int a = 0; a < 3; ++a) centre[a] = grid.origin_mm[a] + 0.5 * (grid.dims[a] - 1) * grid.voxel_mm[a];
  const double w = P.at(2, 0) * centre[0] + P.at(2, 1) * centre[1] + P.at(2, 2) * centre[2] + P.at(2, 3);
  const double sign = w > 0 ? 1.0 : -1.0;
  for (int row = 0; row < 3; ++row)
    for (int c = 0; c < 4; ++c) out.p[4 * row + c] = sign * P.at(row, c);
  const double det = P.at(0, 0) * (P.at(1, 1) * P.at(2, 2) - P.at(1, 2) * P.at(2, 1)) -
                     P.at(0, 1) * (P.at(1, 0) * P.at(2, 2) - P.at(1, 2) * P.at(2, 0)) +
                     P.at(0, 2) * (P.at(1, 0) * P.at(2, 1) - P.at(1, 1) * P.at(2, 0));
  out.scale = grid.voxel_mm[0] * grid.voxel_mm[1] * grid.voxel_mm[2] * std::abs(det);
  out.du_mm = r.du_mm;
  out.dv_mm = r.dv_mm;
  out.d1_mm = r.d1_mm;
  return out;
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

void back_voxel_reference(const ConeGeometry& g, const double* y, double* x, std::span<const int> views) {
  const std::vector<int> list = all_views(g, views);
  std::vector<VoxelView> vv(list.size());
  for (std::size_t k = 0; k < list.size(); ++k) vv[k] = voxel_view(g.grid, g.matrices.at(list[k]), list[k]);
  const int nx = g.grid.dims[0], ny = g.grid.dims[1], nz = g.grid.dims[2];
  const long sx = g.sx, sy = g.sy;
  // The detectors weighted by their rays' density (pixel_weight), then the plain gather.
  std::vector<double> weighted(vv.size() * g.image_size());
  const long nv = static_cast<long>(vv.size());
#pragma omp parallel for collapse(2) schedule(static)
  for (long n = 0; n < nv; ++n)
    for (long j = 0; j < sy; ++j)
      for (long i = 0; i < sx; ++i) {
        const VoxelView& w = vv[n];
        const std::size_t at = n * g.image_size() + j * sx + i;
        weighted[at] = y[at] * pixel_weight(w.du_mm.data(), w.dv_mm.data(), w.d1_mm.data(), w.scale, double(i),
                                             double(j));
      }
#pragma omp parallel for collapse(2) schedule(static)
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const auto c = g.grid.centre(i, j, k);
        double acc = 0;
        for (std::size_t n = 0; n < vv.size(); ++n) {
          double u = 0, v = 0;
          const double w = voxel_weight(vv[n].p.data(), c[0], c[1], c[2], u, v);
          if (w == 0.0 || !(u > -1.0 && u < sx && v > -1.0 && v < sy)) continue;  // every tap outside
          const double* img = weighted.data() + n * g.image_size();
          acc += w * bilinear_sample(u, v, [&](double fu, double fv, int di, int dj) {
                   const long pi = static_cast<long>(fu) + di, pj = static_cast<long>(fv) + dj;
                   return pi >= 0 && pi < sx && pj >= 0 && pj < sy ? img[pj * sx + pi] : 0.0;
                 });
        }
        x[g.grid.index(i, j, k)] = acc;
      }
}

void back_voxel_on_host(const ConeGeometry& g, std::span<const float> y, std::span<float> x, std::span<const int> views) {
  const std::vector<double> yd(y.begin(), y.end());
  std::vector<double> xd(x.size());
  back_voxel_reference(g, yd.data(), xd.data(), views);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(xd[i]);
}

}  // namespace tomo::fdk
