// libFitPofB's London field profiles (compute/musr/bmw/london_1d.hpp).
#include "compute/musr/bmw/london_1d.hpp"

#include <cmath>

namespace tomo::musr::bmw {

// The half-space's profile ends at 200 nm, as the library's (its B(z) grid and B_min).
constexpr double kHalfSpaceDepth = 200.0;

double LondonHalfSpace::field(double z) const {
  if (z < 0.0 || z < d_) return b0_;
  return b0_ * std::exp((d_ - z) / lambda_);
}

double LondonHalfSpace::b_min() const { return b0_ * std::exp((d_ - kHalfSpaceDepth) / lambda_); }

int LondonHalfSpace::inverse(double b, std::array<InverseBranch, 2>& out) const {
  if (b <= 0.0 || b > b0_) return 0;
  out[0] = {.z = d_ - lambda_ * std::log(b / b0_), .dz_db = -lambda_ / b};
  return 1;
}

}  // namespace tomo::musr::bmw
