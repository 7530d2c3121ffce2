// Attenuation in the two-strip geometry (docs/pet.md): the survival a = exp(−∫μ) of a pair along
// the line between its hits (z_u on the strip at y = R, z_d on the one at y = −R), and the
// attenuated acceptance c(y, z): the mean of a over the angles under which a pair from (y, z)
// hits both strips ([Bialas2015] eq. (4)'s range), the sensitivity of ρ' = sρ with attenuation.
// The μ-map is read in the frame of StripGeometry::grid3 (x = z along the strips, y across).
#pragma once
#include <vector>

#include "compute/pet/attenuation.hpp"
#include "compute/strip/geometry.hpp"

namespace tomo::strip {

double survival(const pet::AttenuationMap& mu, double R, double z_u, double z_d);

// Per pixel (StripGeometry::index order), `samples` angles per pixel; 0 outside the field of view.
std::vector<double> attenuated_acceptance(const StripGeometry& g, const pet::AttenuationMap& mu, int samples = 64);

}  // namespace tomo::strip
