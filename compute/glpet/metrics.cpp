// glpet metrics (report.json): NRMSE, centroid, sphere contrast and recovery.
#include "compute/glpet/metrics.hpp"

#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/metrics.hpp"
#include "compute/core/log.hpp"

namespace tomo::glpet {

double nrmse(std::span<const float> x, std::span<const float> ref) { return relative_l2(x, ref); }

Vec3 centroid(const Grid3& g, std::span<const float> x) {
  Vec3 c{0, 0, 0};
  double total = 0;
  for (int k = 0; k < g.dims[2]; ++k)
    for (int j = 0; j < g.dims[1]; ++j)
      for (int i = 0; i < g.dims[0]; ++i) {
        const double w = x[g.index(i, j, k)];
        const Vec3 p = g.centre(i, j, k);
        for (int a = 0; a < 3; ++a) c[a] += w * p[a];
        total += w;
      }
  if (total > 0)
    for (double& v : c) v /= total;
  return c;
}

std::vector<SphereContrast> sphere_contrasts(const Phantom& act, const Grid3& g, std::span<const float> x,
                                             std::span<const float> ref) {
  std::vector<SphereContrast> out;
  if (act.shapes.size() < 2) return out;
  const std::size_t ns = act.shapes.size();
  std::vector<double> sx(ns, 0), sr(ns, 0), n(ns, 0);  // index 0: background
  for (int k = 0; k < g.dims[2]; ++k)
    for (int j = 0; j < g.dims[1]; ++j)
      for (int i = 0; i < g.dims[0]; ++i) {
        const Vec3 p = g.centre(i, j, k);
        const std::size_t v = g.index(i, j, k);
        bool in_other = false;
        for (std::size_t s = 1; s < ns; ++s)
          if (act.shapes[s].contains(p)) {
            in_other = true;
            sx[s] += x[v];
            sr[s] += ref[v];
            n[s] += 1;
          }
        if (!in_other && act.shapes[0].contains(p)) {
          sx[0] += x[v];
          sr[0] += ref[v];
          n[0] += 1;
        }
      }
  for (std::size_t s = 1; s < ns; ++s) {
    SphereContrast c;
    c.name = str_cat("sphere", s);
    if (n[s] > 0 && n[0] > 0 && sx[0] > 0 && sr[0] > 0) {
      c.contrast = (sx[s] / n[s]) / (sx[0] / n[0]);
      c.contrast_true = (sr[s] / n[s]) / (sr[0] / n[0]);
      c.recovery = std::fabs(c.contrast_true - 1) > 1e-9 ? (c.contrast - 1) / (c.contrast_true - 1) : 0.0;
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace tomo::glpet
