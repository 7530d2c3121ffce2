// Line integrals through a μ-map by the voxel boundaries the line crosses (Siddon's parametric traversal).
#include "compute/pet/attenuation.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/io/image_volume.hpp"

namespace tomo::pet {

AttenuationMap::AttenuationMap(VolumeF mu_per_cm, const std::string& what) : mu_(std::move(mu_per_cm)) {
  for (std::size_t j = 0; j < mu_.data.size(); ++j)
    if (!std::isfinite(mu_.data[j]) || mu_.data[j] < 0)
      throw InputError(str_cat(what, ": voxel ", j, " has mu = ", mu_.data[j], " (cm^-1); it must be finite and >= 0"));
  for (int a = 0; a < 3; ++a)
    if (!(mu_.grid.voxel_mm[a] > 0))
      throw InputError(str_cat(what, ": voxel size ", mu_.grid.voxel_mm[a], " mm along axis ", a, " is not > 0"));
}

AttenuationMap AttenuationMap::read(const std::filesystem::path& path, const std::string& key) {
  return AttenuationMap(read_image_volume(path), str_cat(key, " '", path.string(), "'"));
}

double AttenuationMap::line_integral(const std::array<double, 3>& p0, const std::array<double, 3>& p1) const {
  const Grid3& g = mu_.grid;
  double d[3], lo[3], hi[3];
  double t0 = 0, t1 = 1;
  for (int a = 0; a < 3; ++a) {
    d[a] = p1[a] - p0[a];
    lo[a] = g.origin_mm[a] - 0.5 * g.voxel_mm[a];
    hi[a] = lo[a] + g.dims[a] * g.voxel_mm[a];
    if (d[a] == 0) {
      if (p0[a] <= lo[a] || p0[a] >= hi[a]) return 0.0;
      continue;
    }
    double ta = (lo[a] - p0[a]) / d[a], tb = (hi[a] - p0[a]) / d[a];
    if (ta > tb) std::swap(ta, tb);
    t0 = std::max(t0, ta);
    t1 = std::min(t1, tb);
  }
  if (!(t0 < t1)) return 0.0;
  const double length = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  // The parameters where the segment crosses a voxel boundary, each axis's in increasing order.
  std::vector<double> ts{t0, t1};
  for (int a = 0; a < 3; ++a) {
    if (d[a] == 0) continue;
    const double u0 = (p0[a] + t0 * d[a] - lo[a]) / g.voxel_mm[a], u1 = (p0[a] + t1 * d[a] - lo[a]) / g.voxel_mm[a];
    const int first = int(std::ceil(std::min(u0, u1))), last = int(std::floor(std::max(u0, u1)));
    for (int b = first; b <= last; ++b) ts.push_back((lo[a] + b * g.voxel_mm[a] - p0[a]) / d[a]);
  }
  std::sort(ts.begin(), ts.end());
  double sum = 0;  // Σ μ [cm⁻¹] · length [mm]
  for (std::size_t k = 0; k + 1 < ts.size(); ++k) {
    const double ta = std::max(ts[k], t0), tb = std::min(ts[k + 1], t1);
    if (!(tb > ta)) continue;
    const double tm = 0.5 * (ta + tb);
    int idx[3];
    for (int a = 0; a < 3; ++a)
      idx[a] = std::clamp(int(std::floor((p0[a] + tm * d[a] - lo[a]) / g.voxel_mm[a])), 0, g.dims[a] - 1);
    sum += double(mu_.data[g.index(idx[0], idx[1], idx[2])]) * (tb - ta) * length;
  }
  return sum / 10.0;  // cm⁻¹ · mm → dimensionless
}

double AttenuationMap::survival(const std::array<double, 3>& p0, const std::array<double, 3>& p1) const {
  return std::exp(-line_integral(p0, p1));
}

}  // namespace tomo::pet
