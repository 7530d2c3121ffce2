// Sphere/shell sums, excess maps and spot finding ([Locans2017] eqs. 13–14).
#include "compute/safir/analysis.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::safir {

std::vector<SphereOffset> sphere_offsets(double voxel_mm, double r_in_mm, double r_out_mm) {
  if (!(r_in_mm > 0) || !(r_out_mm > r_in_mm))
    throw InputError(str_cat("safir analysis: need 0 < inner radius < outer radius, got ", r_in_mm, " and ", r_out_mm, " mm"));
  const int m = static_cast<int>(std::floor(r_out_mm / voxel_mm));
  std::vector<SphereOffset> out;
  const double rin2 = r_in_mm * r_in_mm, rout2 = r_out_mm * r_out_mm;
  for (int k = -m; k <= m; ++k)
    for (int j = -m; j <= m; ++j)
      for (int i = -m; i <= m; ++i) {
        const double d2 = (i * i + j * j + k * k) * voxel_mm * voxel_mm;
        // A tiny tolerance so a centre exactly on the sphere counts the same in float and double.
        if (d2 <= rout2 * (1 + 1e-9)) out.push_back({i, j, k, d2 <= rin2 * (1 + 1e-9) ? 0 : 1});
      }
  return out;
}

SphereSums sphere_sums_cpu(std::span<const double> image, const std::array<int, 3>& n, double voxel_mm,
                           double r_in_mm, double r_out_mm, int threads) {
  const auto offs = sphere_offsets(voxel_mm, r_in_mm, r_out_mm);
  const std::size_t count = static_cast<std::size_t>(n[0]) * n[1] * n[2];
  if (image.size() != count) throw Error(str_cat("safir analysis: image of ", image.size(), " voxels, box has ", count));
  SphereSums s{std::vector<double>(count), std::vector<double>(count), std::vector<double>(count),
               std::vector<double>(count)};
  const int nt = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        double acc[2] = {0, 0}, cnt[2] = {0, 0};
        for (const SphereOffset& o : offs) {
          const int x = i + o.di, y = j + o.dj, z = k + o.dk;
          if (x < 0 || y < 0 || z < 0 || x >= n[0] || y >= n[1] || z >= n[2]) continue;
          acc[o.shell] += image[x + static_cast<std::size_t>(n[0]) * (y + static_cast<std::size_t>(n[1]) * z)];
          cnt[o.shell] += 1;
        }
        const std::size_t v = i + static_cast<std::size_t>(n[0]) * (j + static_cast<std::size_t>(n[1]) * k);
        s.inner[v] = acc[0];
        s.shell[v] = acc[1];
        s.n_inner[v] = cnt[0];
        s.n_shell[v] = cnt[1];
      }
  return s;
}

Excess excess_from_sums(double inner, double shell, double n_inner, double n_shell, double kappa) {
  Excess e;
  if (!(n_inner > 0) || !(n_shell > 0)) return e;
  e.S = kappa * inner;
  e.B = kappa * shell * n_inner / n_shell;
  if (!(e.B > 0) || !(e.S > 0)) return e;
  e.E = (e.S - e.B) / e.B;                                   // eq. (13)
  e.dE = e.S / e.B * std::sqrt(1.0 / e.S + 1.0 / e.B);       // eq. (14)
  return e;
}

ExcessMaps excess_maps(const SphereSums& s, double kappa) {
  ExcessMaps m{std::vector<double>(s.inner.size()), std::vector<double>(s.inner.size()),
               std::vector<double>(s.inner.size())};
#pragma omp parallel for schedule(static)
  for (std::int64_t v = 0; v < static_cast<std::int64_t>(s.inner.size()); ++v) {
    const Excess e = excess_from_sums(s.inner[v], s.shell[v], s.n_inner[v], s.n_shell[v], kappa);
    m.E[v] = e.E;
    m.dE[v] = e.dE;
    m.significance[v] = e.significance();
  }
  return m;
}

double counts_per_unit(std::span<const double> image, double events) {
  double f = 0;
  for (double v : image) f += v;
  return f > 0 ? events / f : 0.0;
}

std::vector<Spot> find_spots(const ExcessMaps& maps, const SphereSums& sums, const Grid3& g, double kappa,
                             double threshold, std::size_t max_spots) {
  std::vector<Spot> spots;
  const auto& q = maps.significance;
  for (int k = 0; k < g.dims[2]; ++k)
    for (int j = 0; j < g.dims[1]; ++j)
      for (int i = 0; i < g.dims[0]; ++i) {
        const std::size_t v = g.index(i, j, k);
        if (!(q[v] > threshold)) continue;
        bool peak = true;
        for (int c = -1; c <= 1 && peak; ++c)
          for (int b = -1; b <= 1 && peak; ++b)
            for (int a = -1; a <= 1 && peak; ++a) {
              const int x = i + a, y = j + b, z = k + c;
              if ((a | b | c) == 0 || x < 0 || y < 0 || z < 0 || x >= g.dims[0] || y >= g.dims[1] || z >= g.dims[2])
                continue;
              const std::size_t w = g.index(x, y, z);
              if (q[w] > q[v] || (q[w] == q[v] && w < v)) peak = false;  // one peak per plateau
            }
        if (!peak) continue;
        spots.push_back({{i, j, k}, g.centre(i, j, k),
                         excess_from_sums(sums.inner[v], sums.shell[v], sums.n_inner[v], sums.n_shell[v], kappa)});
      }
  std::sort(spots.begin(), spots.end(),
            [](const Spot& a, const Spot& b) { return a.excess.significance() > b.excess.significance(); });
  if (spots.size() > max_spots) spots.resize(max_spots);
  return spots;
}

Excess excess_at(std::span<const double> image, const Grid3& g, const std::array<double, 3>& mm, double r_in_mm,
                 double r_out_mm, double kappa) {
  const int m = static_cast<int>(std::ceil(r_out_mm / g.voxel_mm[0])) + 1;
  int c[3];
  for (int a = 0; a < 3; ++a) c[a] = static_cast<int>(std::lround((mm[a] - g.origin_mm[a]) / g.voxel_mm[a]));
  double acc[2] = {0, 0}, cnt[2] = {0, 0};
  for (int k = c[2] - m; k <= c[2] + m; ++k)
    for (int j = c[1] - m; j <= c[1] + m; ++j)
      for (int i = c[0] - m; i <= c[0] + m; ++i) {
        if (i < 0 || j < 0 || k < 0 || i >= g.dims[0] || j >= g.dims[1] || k >= g.dims[2]) continue;
        const auto p = g.centre(i, j, k);
        const double d2 = (p[0] - mm[0]) * (p[0] - mm[0]) + (p[1] - mm[1]) * (p[1] - mm[1]) + (p[2] - mm[2]) * (p[2] - mm[2]);
        if (d2 > r_out_mm * r_out_mm * (1 + 1e-9)) continue;
        const int shell = d2 <= r_in_mm * r_in_mm * (1 + 1e-9) ? 0 : 1;
        acc[shell] += image[g.index(i, j, k)];
        cnt[shell] += 1;
      }
  return excess_from_sums(acc[0], acc[1], cnt[0], cnt[1], kappa);
}

}  // namespace tomo::safir
