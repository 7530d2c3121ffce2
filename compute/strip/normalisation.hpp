// The normalisation of the two-strip detector (docs/pet.md) in the component form: the detection
// efficiency along each strip, the strips cut into N equal segments along z; a pair hitting z_u
// (upper strip, y = R) and z_d (lower, y = −R) is detected with ε_u(z_u)·ε_d(z_d). Its factor
// cancels in each event's EM ratio; it enters as ρ''s sensitivity, the acceptance weighted by it.
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "compute/strip/geometry.hpp"

namespace tomo::strip {

struct StripEfficiency {
  std::vector<double> upper, lower;  // N segments each, z from −L/2 to L/2
  double L = 300.0;

  double at(const std::vector<double>& e, double z) const;
  double pair(double z_u, double z_d) const { return at(upper, z_u) * at(lower, z_d); }

  // From a .npy of 2N values (shape (2, N) or flat: the upper strip's N, then the lower's), each
  // finite and in [0, 1]: InputError naming `key`, the file and the first bad value.
  static StripEfficiency from_npy(const std::filesystem::path& path, double L, const std::string& key);
};

// Per pixel (StripGeometry::index order): the mean of w(z_u, z_d) over the angles under which a
// pair from the pixel hits both strips ([Bialas2015] eq. (4)'s range), `samples` angles per
// pixel; 0 outside the field of view. With w = the survival exp(−∫μ) it is the attenuated
// acceptance, with w = ε_u·ε_d the efficiency's, with their product both.
std::vector<double> weighted_acceptance(const StripGeometry& g, const std::function<double(double, double)>& w,
                                        int samples = 64);

}  // namespace tomo::strip
