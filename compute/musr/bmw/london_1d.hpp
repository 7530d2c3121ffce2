// libFitPofB's one-dimensional London field profiles B(z) below a flat surface in an applied
// field B₀ parallel to it, with their closed-form inverses z(B) and dz/dB, which the library's
// P(B) samples (compute/musr/bmw/field_distribution.hpp). Lengths in nm, fields in G.
//   half-space (TLondon1D_HS): B = B₀ for z < d (the dead layer), B₀·e^(−(z−d)/λ) beyond, the
//   profile spanning 0 … 200 nm, so B_min = B₀·e^((d−200)/λ).
//   film (TLondon1D_1L): one layer of thickness t between d and d + t, field B₀ on both sides:
//   B = c₀e^(−z/λ) + c₁e^(z/λ) = B₀ cosh((z − d − t/2)/λ)/cosh(t/2λ), B₀ outside the layer.
//   bilayer (TLondon1D_2L): two layers t₁ (λ₁) and t₂ (λ₂) from d on, B₀ on both sides, B and
//   λ²·dB/dz (the vector potential) continuous at the inner interface; c₀e^(−z/λ₁) + c₁e^(z/λ₁),
//   then c₂e^(−z/λ₂) + c₃e^(z/λ₂).
//   trilayer (TLondon1D_3L): three layers likewise; TLondon1D_3LS the same with λ₃ = λ₁.
//   proximity layer on a half-space (TProximity1D_1LHS): B falls linearly from B₀ to B₁ over a
//   layer t after the dead layer, then B₁e^(−(z−d−t)/λ), the profile ending at 200 nm.
// The films' minimum is found as the library finds it, the stationary point of the layer that
// holds it, with the library's quirks kept: the ratio c₁/c₀ of the (first) layer is raised to
// 10⁻⁶ before the logarithm, so where (2d + t)/λ > ln 10⁶ the minimum is put at ½λ ln 10⁶ (the
// fields below B there have no depth) and, where that lies outside the film, B_min = 0 and only
// the branch beyond the middle counts; the film's coefficients come from the arguments before
// its clamps (t, d ≥ 0, λ ≥ 0.1 nm), its range from those after them; a bilayer's field B₀
// itself has no depth (a trilayer's has).
#pragma once
#include <array>

namespace tomo::musr::bmw {

// One branch of the inverse: the depth z at field B and dz/dB there.
struct InverseBranch {
  double z = 0.0, dz_db = 0.0;
};

// A field profile with a closed-form inverse: at most four depths per field.
using InverseBranches = std::array<InverseBranch, 4>;
class InverseFieldProfile {
 public:
  virtual ~InverseFieldProfile() = default;
  virtual double field(double z) const = 0;  // B(z)
  virtual double b_min() const = 0;
  virtual double b_max() const = 0;
  // The branches at field B into `out`; their number (0 where no depth has that field).
  virtual int inverse(double b, InverseBranches& out) const = 0;
};

class LondonHalfSpace final : public InverseFieldProfile {
 public:
  // B₀ [G], dead layer d [nm], λ [nm].
  LondonHalfSpace(double b0, double dead_layer, double lambda) : b0_(b0), d_(dead_layer), lambda_(lambda) {}
  double field(double z) const override;
  double b_min() const override;
  double b_max() const override { return b0_; }
  int inverse(double b, InverseBranches& out) const override;

 private:
  double b0_, d_, lambda_;
};

class LondonFilm final : public InverseFieldProfile {
 public:
  // B₀ [G], dead layer d, thickness t, λ [nm].
  LondonFilm(double b0, double dead_layer, double thickness, double lambda);
  double field(double z) const override;
  double b_min() const override { return min_b_; }
  double b_max() const override { return b0_; }
  int inverse(double b, InverseBranches& out) const override;

 private:
  double b0_, d_, t_, lambda_;
  double c_[2];
  double min_z_ = -1.0, min_b_ = -1.0;
};

// Two or three London layers between surfaces in B₀, B = a_j e^(−z/λ_j) + b_j e^(z/λ_j) in layer
// j: the layers before the one holding the minimum fall, the layers after it rise.
class LondonLayers : public InverseFieldProfile {
 public:
  double field(double z) const override;
  double b_min() const override { return min_b_; }
  double b_max() const override { return b0_; }
  int inverse(double b, InverseBranches& out) const override;

 protected:
  // Interfaces z₀ < … < z_n, λ_j and (a_j, b_j) per layer; `b0_has_depth`: B₀ itself is inverted.
  LondonLayers(double b0, int layers, const double* interfaces, const double* lambdas, const double* coeff, bool b0_has_depth,
               const char* what);

 private:
  double b0_;
  int layers_;
  bool b0_has_depth_;
  std::array<double, 4> interface_{};
  std::array<double, 3> lambda_{};
  std::array<double, 6> c_{};
  int min_layer_ = -1;
  double min_z_ = -1.0, min_b_ = -1.0;
};

class LondonBilayer final : public LondonLayers {
 public:
  // B₀ [G], dead layer d, thicknesses t₁, t₂, λ₁, λ₂ [nm]; InputError where the field has no
  // minimum inside the layers (the library stops there).
  LondonBilayer(double b0, double dead_layer, double t1, double t2, double lambda1, double lambda2);
};

// TLondon1D_3L: three layers t₁, t₂, t₃ with λ₁, λ₂, λ₃, the same conditions at each interface.
class LondonTrilayer final : public LondonLayers {
 public:
  LondonTrilayer(double b0, double dead_layer, double t1, double t2, double t3, double lambda1, double lambda2, double lambda3);
};

// TLondon1D_3LS: the trilayer with λ₁ in the outer two layers, from the library's own closed form.
class LondonSymmetricTrilayer final : public LondonLayers {
 public:
  LondonSymmetricTrilayer(double b0, double dead_layer, double t1, double t2, double t3, double lambda1, double lambda2);
};

class ProximityHalfSpace final : public InverseFieldProfile {
 public:
  // B₀, B₁ [G], dead layer d, layer t, λ [nm], clamped as the library does: B₁ = B₀ − 0.001 G
  // where they are equal, d, t ≥ 0, and λ = 1 nm where t < 1 nm (the library tests t there).
  ProximityHalfSpace(double b0, double b1, double dead_layer, double thickness, double lambda);
  double field(double z) const override;
  double b_min() const override { return field(200.0); }
  double b_max() const override { return b0_; }
  int inverse(double b, InverseBranches& out) const override;

 private:
  double b0_, b1_, d_, t_, lambda_;
};

}  // namespace tomo::musr::bmw
