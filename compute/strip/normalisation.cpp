// The strips' detection efficiency and the weighted acceptance (normalisation.hpp).
#include "compute/strip/normalisation.hpp"

#include <algorithm>
#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/pet/corrections.hpp"
#include "compute/io/npy.hpp"

namespace tomo::strip {

double StripEfficiency::at(const std::vector<double>& e, double z) const {
  if (e.empty()) return 1.0;
  const double u = (z + 0.5 * L) / L * double(e.size());
  const auto i = static_cast<std::ptrdiff_t>(std::floor(u));
  return e[std::size_t(std::clamp<std::ptrdiff_t>(i, 0, std::ptrdiff_t(e.size()) - 1))];
}

StripEfficiency StripEfficiency::from_npy(const std::filesystem::path& path, double L, const std::string& key) {
  const std::size_t n = read_npy(path).count();
  if (n < 2 || n % 2 != 0)
    throw InputError(str_cat(key, " '", path.string(), "': ", n,
                             " values; expected 2N (the upper strip's N segment efficiencies, then the lower's)"));
  const std::vector<double> v = pet::read_term_file(path, n, key);  // finite and >= 0
  for (std::size_t i = 0; i < n; ++i)
    if (v[i] > 1.0)
      throw InputError(str_cat(key, " '", path.string(), "': value ", i, " is ", v[i], "; an efficiency is at most 1"));
  StripEfficiency e;
  e.L = L;
  e.upper.assign(v.begin(), v.begin() + std::ptrdiff_t(n / 2));
  e.lower.assign(v.begin() + std::ptrdiff_t(n / 2), v.end());
  return e;
}

std::vector<double> weighted_acceptance(const StripGeometry& g, const std::function<double(double, double)>& w,
                                        int samples) {
  std::vector<double> c(g.pixel_count(), 0.0);
  const double R = g.R, L = g.L;
#pragma omp parallel for schedule(dynamic, 1)
  for (int j = 0; j < g.n_y; ++j)
    for (int k = 0; k < g.n_z; ++k) {
      const double y = g.y_centre(j), z = g.z_centre(k);
      if (!(std::abs(y) < R) || !(std::abs(z) <= 0.5 * L)) continue;
      // The accepted angles of eq. (4): both hits within [−L/2, L/2].
      const double hi = std::atan(std::min((0.5 * L - z) / (R - y), (0.5 * L + z) / (R + y)));
      const double lo = std::atan(std::max(-(0.5 * L + z) / (R - y), (-0.5 * L + z) / (R + y)));
      if (!(hi > lo)) continue;
      double sum = 0;
      for (int n = 0; n < samples; ++n) {  // midpoints: emission is uniform in θ
        const double t = std::tan(lo + (n + 0.5) * (hi - lo) / samples);
        sum += w(z + (R - y) * t, z - (R + y) * t);
      }
      c[g.index(j, k)] = sum / samples;
    }
  return c;
}

}  // namespace tomo::strip
