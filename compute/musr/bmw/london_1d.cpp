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

LondonLayers::LondonLayers(double b0, int layers, const double* interfaces, const double* lambdas, const double* coeff,
                           bool b0_has_depth, const char* what)
    : b0_(b0), layers_(layers), b0_has_depth_(b0_has_depth) {
  for (int j = 0; j <= layers; ++j) interface_[static_cast<std::size_t>(j)] = interfaces[j];
  for (int j = 0; j < layers; ++j) lambda_[static_cast<std::size_t>(j)] = lambdas[j];
  for (int j = 0; j < 2 * layers; ++j) c_[static_cast<std::size_t>(j)] = coeff[j];
  // The library's search: the stationary point of each layer in turn (the first layer's ratio
  // raised to 10⁻⁶), the first that lies inside its layer.
  for (int j = 0; j < layers; ++j) {
    const auto u = static_cast<std::size_t>(j);
    double ratio = c_[2 * u + 1] / c_[2 * u];
    if (j == 0) ratio = std::max(ratio, kMinCoefficientRatio);
    const double z = -0.5 * lambda_[u] * std::log(ratio);
    if (z > interface_[u] && z <= interface_[u + 1]) {
      min_layer_ = j, min_z_ = z;
      min_b_ = field(z);
      return;
    }
  }
  throw InputError(std::string(what) + ": the field has no minimum inside the layers");
}

double LondonLayers::field(double z) const {
  const auto n = static_cast<std::size_t>(layers_);
  if (z < 0.0 || z < interface_[0] || z > interface_[n]) return b0_;
  std::size_t j = 0;
  while (j + 1 < n && !(z < interface_[j + 1])) ++j;
  return c_[2 * j] * std::exp(-z / lambda_[j]) + c_[2 * j + 1] * std::exp(z / lambda_[j]);
}

int LondonLayers::inverse(double b, InverseBranches& out) const {
  if (b <= min_b_ || b > b0_ || (b == b0_ && !b0_has_depth_)) return 0;
  int n = 0;
  const auto m = static_cast<std::size_t>(min_layer_);
  for (std::size_t j = 0; j < static_cast<std::size_t>(layers_); ++j) {
    const double root = std::sqrt(b * b - 4.0 * c_[2 * j] * c_[2 * j + 1]);
    const double lo = interface_[j], hi = interface_[j + 1], l = lambda_[j];
    if (j <= m) {  // the falling root: before the minimum's layer, and in it up to the minimum
      const double z = l * std::log((b - root) / (2.0 * c_[2 * j + 1]));
      if (z > lo && (j < m ? z <= hi : z < min_z_)) out[static_cast<std::size_t>(n++)] = {.z = z, .dz_db = -l / root};
    }
    if (j >= m) {  // the rising root: in the minimum's layer beyond it, and after it
      const double z = l * std::log((b + root) / (2.0 * c_[2 * j + 1]));
      if ((j > m ? z > lo : z > min_z_) && z <= hi) out[static_cast<std::size_t>(n++)] = {.z = z, .dz_db = l / root};
    }
  }
  return n;
}

namespace {

// The library's coefficients of the bilayer (B₀ at both surfaces, B and λ²dB/dz continuous).
std::array<double, 4> bilayer_coefficients(double b0, double dd, double d1, double d2, double l1, double l2) {
  if (!(dd >= 0.0 && d1 >= 0.0 && d2 >= 0.0) || l1 == 0.0 || l2 == 0.0)
    throw InputError("London bilayer: thicknesses must be ≥ 0 and lambdas non-zero");
  const double e1 = std::exp(d1 / l1), e2 = std::exp(d2 / l2);
  const double n0 = (1.0 + e1 * e1) * (-1.0 + e2 * e2) * l1 + (-1.0 + e1 * e1) * (1.0 + e2 * e2) * l2;
  const double n1 = 4.0 * (l2 * std::cosh(d2 / l2) * std::sinh(d1 / l1) + l1 * std::cosh(d1 / l1) * std::sinh(d2 / l2));
  return {b0 * std::exp((d1 + dd) / l1) * (-2.0 * e2 * l2 + e1 * (l2 - l1) + e1 * e2 * e2 * (l1 + l2)) / n0,
          -b0 * std::exp(-(dd + d1) / l1 - d2 / l2) * (l1 - e2 * e2 * l1 + (1.0 - 2.0 * e1 * e2 + e2 * e2) * l2) / n1,
          b0 * std::exp((d1 + d2 + dd) / l2) * (-(1.0 + e1 * e1 - 2.0 * e1 * e2) * l1 + (-1.0 + e1 * e1) * l2) / n0,
          b0 * std::exp(-d1 / l1 - (d1 + d2 + dd) / l2) * (-2.0 * e1 * l1 + e2 * (l1 - l2 + e1 * e1 * (l1 + l2))) / n1};
}

// The library's coefficients of the trilayer (the same conditions at both inner interfaces).
std::array<double, 6> trilayer_coefficients(double b0, double dd, double d1, double d2, double d3, double l1, double l2, double l3) {
  if (!(dd >= 0.0 && d1 >= 0.0 && d2 >= 0.0 && d3 >= 0.0) || l1 == 0.0 || l2 == 0.0 || l3 == 0.0)
    throw InputError("London trilayer: thicknesses must be ≥ 0 and lambdas non-zero");
  using std::cosh, std::exp, std::sinh;
  const double e21 = exp(2.0 * d1 / l1), e22 = exp(2.0 * d2 / l2), e23 = exp(2.0 * d3 / l3);
  const double c2 = cosh(d2 / l2), s2 = sinh(d2 / l2), c3 = cosh(d3 / l3), s3 = sinh(d3 / l3);
  const double n5 = (1.0 + e21) * l1 * (l3 * c3 * s2 + l2 * c2 * s3) + (-1.0 + e21) * l2 * (l3 * c2 * c3 + l2 * s2 * s3);
  const double n0 = 4.0 * n5, n3 = 2.0 * n5;
  const double n2 = 2.0 * l3 * c3 * ((-1.0 + e21) * l2 * c2 + (1.0 + e21) * l1 * s2) +
                    4.0 * exp(d1 / l1) * l2 * (l1 * cosh(d1 / l1) * c2 + l2 * sinh(d1 / l1) * s2) * s3;
  return {
      (b0 * exp((d1 + dd) / l1 - d2 / l2 - d3 / l3) *
       (exp(d1 / l1) * (l1 - l2) * (-l2 + e23 * (l2 - l3) - l3) - 4.0 * exp(d2 / l2 + d3 / l3) * l2 * l3 +
        exp(d1 / l1 + 2.0 * d2 / l2) * (l1 + l2) * (-l2 + l3 + e23 * (l2 + l3)))) /
          n0,
      (b0 * exp(-dd / l1 - d2 / l2 - d3 / l3) *
       (-l2 * ((-1.0 + e22) * (-1.0 + e23) * l2 + (1.0 + e22 - 4.0 * exp(d1 / l1 + d2 / l2 + d3 / l3) + e23 * (1.0 + e22)) * l3) +
        4.0 * exp(d2 / l2 + d3 / l3) * l1 * (l3 * c3 * s2 + l2 * c2 * s3))) /
          n0,
      (b0 * exp((d1 + dd) / l2) * (-e21 * (l1 - l2) * l3 - (l1 + l2) * l3 + 2.0 * exp(d1 / l1 + d2 / l2) * l1 * (l3 * c3 + l2 * s3))) / n2,
      (b0 * exp(-(d1 + d2 + dd) / l2 - d3 / l3) *
       (exp(d2 / l2 + d3 / l3) * (l1 - l2 + e21 * (l1 + l2)) * l3 - exp(d1 / l1) * l1 * (l2 + l3 + e23 * (l3 - l2)))) /
          n3,
      (0.25 * b0 * exp(-d2 / l2 + (d1 + d2 + dd) / l3) *
       (4.0 * exp(d1 / l1 + d2 / l2 + d3 / l3) * l1 * l2 - (-1.0 + e21) * l2 * (-l2 + e22 * (l2 - l3) - l3) -
        (1.0 + e21) * l1 * (l2 + e22 * (l2 - l3) + l3))) /
          n5,
      (b0 * exp(-(d1 + d2 + d3 + dd) / l3 + d1 / l1) *
       (-l1 * l2 + exp(d3 / l3) * (l2 * sinh(d1 / l1) * (l3 * c2 + l2 * s2) + l1 * cosh(d1 / l1) * (l2 * c2 + l3 * s2)))) /
          n5};
}

// The library's own coefficients of the trilayer with λ₁ outside and λ₂ inside.
std::array<double, 6> symmetric_trilayer_coefficients(double b0, double dd, double d1, double d2, double d3, double l1, double l2) {
  if (!(dd >= 0.0 && d1 >= 0.0 && d2 >= 0.0 && d3 >= 0.0) || l1 == 0.0 || l2 == 0.0)
    throw InputError("London symmetric trilayer: thicknesses must be ≥ 0 and lambdas non-zero");
  using std::cosh, std::exp, std::sinh;
  const double n0 = 8.0 * (l1 * l2 * cosh(d2 / l2) * sinh((d1 + d3) / l1) +
                           (l1 * l1 * cosh(d1 / l1) * cosh(d3 / l1) + l2 * l2 * sinh(d1 / l1) * sinh(d3 / l1)) * sinh(d2 / l2));
  const double e21 = exp(2.0 * d1 / l1), e22 = exp(2.0 * d2 / l2), e23 = exp(2.0 * d3 / l1);
  const double mid = 2.0 * (1.0 - 2.0 * exp((d1 + d3) / l1 + d2 / l2) + e22) * l1 * l2;
  return {b0 * exp((dd - d3) / l1 - d2 / l2) *
              (-4.0 * exp(d3 / l1 + d2 / l2) * l1 * l2 - exp(d1 / l1) * (l1 - l2) * (l1 + e23 * (l1 - l2) + l2) +
               exp(d1 / l1 + 2.0 * d2 / l2) * (l1 + l2) * (l1 - l2 + e23 * (l1 + l2))) /
              n0,
          b0 * exp(-(d1 + d3 + dd) / l1 - d2 / l2) * ((1.0 + e23) * (-1.0 + e22) * l1 * l1 - mid - (-1.0 + e23) * (-1.0 + e22) * l2 * l2) / n0,
          2.0 * b0 * exp(-(d1 + d3) / l1 + (d1 + dd) / l2) * l1 *
              (-exp(d3 / l1) * (l1 + e21 * (l1 - l2) + l2) + exp(d1 / l1 + d2 / l2) * (l1 - l2 + e23 * (l1 + l2))) / n0,
          2.0 * b0 * exp(-(d1 + d3) / l1 - (d1 + d2 + dd) / l2) * l1 *
              (-exp(d1 / l1) * (l1 + e23 * (l1 - l2) + l2) + exp(d3 / l1 + d2 / l2) * (l1 - l2 + e21 * (l1 + l2))) / n0,
          b0 * exp((d2 + dd) / l1 - d2 / l2) * ((1.0 + e21) * (-1.0 + e22) * l1 * l1 - mid - (-1.0 + e21) * (-1.0 + e22) * l2 * l2) / n0,
          b0 * exp(-(2.0 * d1 + d2 + d3 + dd) / l1 - d2 / l2) *
              (-4.0 * exp(d1 / l1 + d2 / l2) * l1 * l2 + exp(d3 / l1) * (-l1 * l1 - e21 * (l1 - l2) * (l1 - l2) + l2 * l2) +
               exp(d3 / l1 + 2.0 * d2 / l2) * (l1 * l1 - l2 * l2 + e21 * (l1 + l2) * (l1 + l2))) /
              n0};
}

}  // namespace

LondonBilayer::LondonBilayer(double b0, double dd, double d1, double d2, double l1, double l2)
    : LondonLayers(b0, 2, std::array<double, 3>{dd, dd + d1, dd + d1 + d2}.data(), std::array<double, 2>{l1, l2}.data(),
                   bilayer_coefficients(b0, dd, d1, d2, l1, l2).data(), false, "London bilayer") {}

LondonTrilayer::LondonTrilayer(double b0, double dd, double d1, double d2, double d3, double l1, double l2, double l3)
    : LondonLayers(b0, 3, std::array<double, 4>{dd, dd + d1, dd + d1 + d2, dd + d1 + d2 + d3}.data(),
                   std::array<double, 3>{l1, l2, l3}.data(), trilayer_coefficients(b0, dd, d1, d2, d3, l1, l2, l3).data(), true,
                   "London trilayer") {}

LondonSymmetricTrilayer::LondonSymmetricTrilayer(double b0, double dd, double d1, double d2, double d3, double l1, double l2)
    : LondonLayers(b0, 3, std::array<double, 4>{dd, dd + d1, dd + d1 + d2, dd + d1 + d2 + d3}.data(),
                   std::array<double, 3>{l1, l2, l1}.data(), symmetric_trilayer_coefficients(b0, dd, d1, d2, d3, l1, l2).data(), true,
                   "London symmetric trilayer") {}

ProximityHalfSpace::ProximityHalfSpace(double b0, double b1, double dead_layer, double thickness, double lambda)
    : b0_(b0),
      b1_(b0 != b1 ? b1 : b1 - 0.001),
      d_(dead_layer >= 0.0 ? dead_layer : 0.0),
      t_(thickness >= 0.0 ? thickness : 0.0),
      lambda_(thickness >= 1.0 ? lambda : 1.0) {}

double ProximityHalfSpace::field(double z) const {
  if (z < d_) return b0_;
  if (z < d_ + t_) return b0_ - (b0_ - b1_) / t_ * (z - d_);
  return b1_ * std::exp((d_ + t_ - z) / lambda_);
}

int ProximityHalfSpace::inverse(double b, InverseBranches& out) const {
  if (b <= b_min() || b > b0_) return 0;
  int n = 0;
  const double z0 = (b0_ * (d_ + t_) - b1_ * d_ - b * t_) / (b0_ - b1_);
  const double z1 = d_ + t_ - lambda_ * std::log(b / b1_);
  if (z0 > d_ && z0 <= d_ + t_) out[static_cast<std::size_t>(n++)] = {.z = z0, .dz_db = t_ / (b1_ - b0_)};
  if (z1 > d_ + t_) out[static_cast<std::size_t>(n++)] = {.z = z1, .dz_db = -lambda_ / b};
  return n;
}

}  // namespace tomo::musr::bmw
