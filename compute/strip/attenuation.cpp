// Attenuation in the two-strip geometry (attenuation.hpp).
#include "compute/strip/attenuation.hpp"

#include "compute/strip/normalisation.hpp"

namespace tomo::strip {

double survival(const pet::AttenuationMap& mu, double R, double z_u, double z_d) {
  return mu.survival({z_u, R, 0.0}, {z_d, -R, 0.0});
}

std::vector<double> attenuated_acceptance(const StripGeometry& g, const pet::AttenuationMap& mu, int samples) {
  return weighted_acceptance(g, [&](double z_u, double z_d) { return survival(mu, g.R, z_u, z_d); }, samples);
}

}  // namespace tomo::strip
