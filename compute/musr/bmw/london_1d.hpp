// libFitPofB's one-dimensional London field profiles B(z) below a flat surface in an applied
// field B₀ parallel to it, with their closed-form inverses z(B) and dz/dB, which the library's
// P(B) samples (compute/musr/bmw/field_distribution.hpp). Lengths in nm, fields in G.
//   half-space (TLondon1D_HS): B = B₀ for z < d (the dead layer), B₀·e^(−(z−d)/λ) beyond, the
//   profile spanning 0 … 200 nm, so B_min = B₀·e^((d−200)/λ).
#pragma once
#include <array>

namespace tomo::musr::bmw {

// One branch of the inverse: the depth z at field B and dz/dB there.
struct InverseBranch {
  double z = 0.0, dz_db = 0.0;
};

// A field profile with a closed-form inverse: at most two depths per field.
class InverseFieldProfile {
 public:
  virtual ~InverseFieldProfile() = default;
  virtual double field(double z) const = 0;  // B(z)
  virtual double b_min() const = 0;
  virtual double b_max() const = 0;
  // The branches at field B into `out`; their number (0 where no depth has that field).
  virtual int inverse(double b, std::array<InverseBranch, 2>& out) const = 0;
};

class LondonHalfSpace final : public InverseFieldProfile {
 public:
  // B₀ [G], dead layer d [nm], λ [nm].
  LondonHalfSpace(double b0, double dead_layer, double lambda) : b0_(b0), d_(dead_layer), lambda_(lambda) {}
  double field(double z) const override;
  double b_min() const override;
  double b_max() const override { return b0_; }
  int inverse(double b, std::array<InverseBranch, 2>& out) const override;

 private:
  double b0_, d_, lambda_;
};

}  // namespace tomo::musr::bmw
