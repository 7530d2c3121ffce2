// Attenuation in the two-strip geometry (attenuation.hpp).
#include "compute/strip/attenuation.hpp"

#include <algorithm>
#include <cmath>

namespace tomo::strip {

double survival(const pet::AttenuationMap& mu, double R, double z_u, double z_d) {
  return mu.survival({z_u, R, 0.0}, {z_d, -R, 0.0});
}

std::vector<double> attenuated_acceptance(const StripGeometry& g, const pet::AttenuationMap& mu, int samples) {
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
        sum += survival(mu, R, z + (R - y) * t, z - (R + y) * t);
      }
      c[g.index(j, k)] = sum / samples;
    }
  return c;
}

}  // namespace tomo::strip
