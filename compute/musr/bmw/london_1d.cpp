// libFitPofB's London field profiles (compute/musr/bmw/london_1d.hpp).
#include "compute/musr/bmw/london_1d.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "compute/core/error.hpp"

namespace tomo::musr::bmw {

// The half-space's profile ends at 200 nm, as the library's (its B(z) grid and B_min).
constexpr double kHalfSpaceDepth = 200.0;

double LondonHalfSpace::field(double z) const {
  if (z < 0.0 || z < d_) return b0_;
  return b0_ * std::exp((d_ - z) / lambda_);
}

double LondonHalfSpace::b_min() const { return b0_ * std::exp((d_ - kHalfSpaceDepth) / lambda_); }

int LondonHalfSpace::inverse(double b, InverseBranches& out) const {
  if (b <= 0.0 || b > b0_) return 0;
  out[0] = {.z = d_ - lambda_ * std::log(b / b0_), .dz_db = -lambda_ / b};
  return 1;
}

// The films' minimum: the library raises c₁/c₀ to this before the logarithm.
constexpr double kMinCoefficientRatio = 10e-7;

LondonFilm::LondonFilm(double b0, double dead_layer, double thickness, double lambda)
    : b0_(b0), d_(std::max(dead_layer, 0.0)), t_(std::max(thickness, 0.0)), lambda_(lambda < 0.1 ? 0.1 : lambda) {
  // The library forms the coefficients from the arguments as given, before its clamps.
  const double n0 = b0 / (1.0 + std::exp(thickness / lambda));
  c_[0] = n0 * std::exp((dead_layer + thickness) / lambda);
  c_[1] = n0 * std::exp(-dead_layer / lambda);
  const double ratio = std::max(c_[1] / c_[0], kMinCoefficientRatio);
  const double z = -0.5 * lambda_ * std::log(ratio);
  if (z > d_ && z <= d_ + t_) {
    min_z_ = z;
    min_b_ = field(z);
  } else {
    min_z_ = 0.0;  // the library's fallback: no minimum inside, every field above 0 counts once
    min_b_ = 0.0;
  }
}

double LondonFilm::field(double z) const {
  if (z < 0.0 || z < d_ || z > d_ + t_) return b0_;
  return c_[0] * std::exp(-z / lambda_) + c_[1] * std::exp(z / lambda_);
}

int LondonFilm::inverse(double b, InverseBranches& out) const {
  if (b <= min_b_ || b > b0_) return 0;
  const double root = std::sqrt(b * b - 4.0 * c_[0] * c_[1]);
  const double z0 = lambda_ * std::log((b - root) / (2.0 * c_[1])), z1 = lambda_ * std::log((b + root) / (2.0 * c_[1]));
  int n = 0;
  if (z0 > d_ && z0 < min_z_) out[n++] = {.z = z0, .dz_db = -lambda_ / root};
  if (z1 > min_z_ && z1 <= d_ + t_) out[n++] = {.z = z1, .dz_db = lambda_ / root};
  return n;
}

LondonBilayer::LondonBilayer(double b0, double dd, double d1, double d2, double l1, double l2)
    : b0_(b0), lambda1_(l1), lambda2_(l2), interface_{dd, dd + d1, dd + d1 + d2} {
  if (!(dd >= 0.0 && d1 >= 0.0 && d2 >= 0.0) || l1 == 0.0 || l2 == 0.0)
    throw InputError("London bilayer: thicknesses must be ≥ 0 and lambdas non-zero");
  // The library's closed form of B₀ at both surfaces with B and dB/dz continuous inside.
  const double e1 = std::exp(d1 / l1), e2 = std::exp(d2 / l2);
  const double n0 = (1.0 + e1 * e1) * (-1.0 + e2 * e2) * l1 + (-1.0 + e1 * e1) * (1.0 + e2 * e2) * l2;
  const double n1 = 4.0 * (l2 * std::cosh(d2 / l2) * std::sinh(d1 / l1) + l1 * std::cosh(d1 / l1) * std::sinh(d2 / l2));
  c_[0] = b0 * std::exp((d1 + dd) / l1) * (-2.0 * e2 * l2 + e1 * (l2 - l1) + e1 * e2 * e2 * (l1 + l2)) / n0;
  c_[1] = -b0 * std::exp(-(dd + d1) / l1 - d2 / l2) * (l1 - e2 * e2 * l1 + (1.0 - 2.0 * e1 * e2 + e2 * e2) * l2) / n1;
  c_[2] = b0 * std::exp((d1 + d2 + dd) / l2) * (-(1.0 + e1 * e1 - 2.0 * e1 * e2) * l1 + (-1.0 + e1 * e1) * l2) / n0;
  c_[3] = b0 * std::exp(-d1 / l1 - (d1 + d2 + dd) / l2) * (-2.0 * e1 * l1 + e2 * (l1 - l2 + e1 * e1 * (l1 + l2))) / n1;
  const double z1 = -0.5 * l1 * std::log(std::max(c_[1] / c_[0], kMinCoefficientRatio));
  const double z2 = -0.5 * l2 * std::log(c_[3] / c_[2]);
  if (z1 > interface_[0] && z1 <= interface_[1]) {
    min_layer_ = 1, min_z_ = z1;
  } else if (c_[3] / c_[2] > 0.0 && z2 > interface_[1] && z2 <= interface_[2]) {
    min_layer_ = 2, min_z_ = z2;
  } else {
    throw InputError("London bilayer: the field has no minimum inside the layers (d " + std::to_string(dd) + ", t1 " +
                     std::to_string(d1) + ", t2 " + std::to_string(d2) + " nm)");
  }
  min_b_ = field(min_z_);
}

double LondonBilayer::field(double z) const {
  if (z < 0.0 || z < interface_[0] || z > interface_[2]) return b0_;
  if (z < interface_[1]) return c_[0] * std::exp(-z / lambda1_) + c_[1] * std::exp(z / lambda1_);
  return c_[2] * std::exp(-z / lambda2_) + c_[3] * std::exp(z / lambda2_);
}

int LondonBilayer::inverse(double b, InverseBranches& out) const {
  if (b <= min_b_ || b >= b0_) return 0;
  const double r1 = std::sqrt(b * b - 4.0 * c_[0] * c_[1]), r2 = std::sqrt(b * b - 4.0 * c_[2] * c_[3]);
  int n = 0;
  if (min_layer_ == 1) {
    const double z0 = lambda1_ * std::log((b - r1) / (2.0 * c_[1])), z1 = lambda1_ * std::log((b + r1) / (2.0 * c_[1]));
    const double z2 = lambda2_ * std::log((b + r2) / (2.0 * c_[3]));
    if (z0 > interface_[0] && z0 < min_z_) out[n++] = {.z = z0, .dz_db = -lambda1_ / r1};
    if (z1 > min_z_ && z1 <= interface_[1]) out[n++] = {.z = z1, .dz_db = lambda1_ / r1};
    if (z2 > interface_[1] && z2 <= interface_[2]) out[n++] = {.z = z2, .dz_db = lambda2_ / r2};
  } else {
    const double z0 = lambda1_ * std::log((b - r1) / (2.0 * c_[1]));
    const double z1 = lambda2_ * std::log((b - r2) / (2.0 * c_[3])), z2 = lambda2_ * std::log((b + r2) / (2.0 * c_[3]));
    if (z0 > interface_[0] && z0 <= interface_[1]) out[n++] = {.z = z0, .dz_db = -lambda1_ / r1};
    if (z1 > interface_[1] && z1 < min_z_) out[n++] = {.z = z1, .dz_db = -lambda2_ / r2};
    if (z2 > min_z_ && z2 <= interface_[2]) out[n++] = {.z = z2, .dz_db = lambda2_ / r2};
  }
  return n;
}

}  // namespace tomo::musr::bmw
