// libFitPofB's field distribution P(B) of a depth profile B(z) seen by muons stopping with the
// density n(z), and the muon polarisation P(t) it gives, by the library's numerical rules
// (they decide χ² to the last printed digit):
//   - the field grid B_i = i·ΔB, i < M, with M = ⌊1/(γ̄ Δt ΔB)⌋ rounded up to the next even
//     number above it (γ̄ = kFitPofBGammaBar; Δt, ΔB from BMW_startup.xml);
//   - P(B_i) = Σ_branches n(z(B_i))·|dz/dB| at the bins from ⌊B_min/ΔB⌋ (one lower when B_min
//     lies on a bin) to ⌈B_max/ΔB⌉ (one higher when B_max lies on a bin), normalised so that
//     ΔB·Σ P = 1 over those bins (left at zero when no muon stops there);
//   - a background weight w: P ← (1 − w)·P + w·G, G a Gaussian of width σ/(2πγ̄) around B_bg
//     sampled at every B_i and normalised alike (the dead layer's muons, σ = 0.005 µs⁻¹);
//   - P(t_k) = ΔB·Σ_i P(B_i) cos(2π ik/M + φ) = cos φ·C_k + sin φ·S_k for k ≤ M/2, one real FFT,
//     at t_k = k·Δt' with Δt' = 1/(γ̄ (M − 1) ΔB) (the library labels the M-point transform's
//     times with M − 1), read at t by linear interpolation.
#pragma once
#include <cstddef>
#include <vector>

#include "compute/musr/bmw/london_1d.hpp"
#include "compute/musr/bmw/trim_sp_data.hpp"

namespace tomo::musr::bmw {

struct PofBGrid {
  double delta_b = 0.0;  // G
  std::size_t size = 0;  // M
  double t_bin = 0.0;    // Δt' [µs]
};

// The library's grid for time step Δt [µs] and field step ΔB [G].
PofBGrid pofb_grid(double delta_t, double delta_b);

// P(B) on the grid from a profile with a closed-form inverse and the implantation profile.
std::vector<double> field_distribution(const PofBGrid& g, const InverseFieldProfile& profile, const TrimSpProfile& n);

// Mixes in the Gaussian background of weight w (nothing where σ = 0, w ∉ [0, 1] or B_bg < 0, as
// the library skips it).
void add_background(const PofBGrid& g, std::vector<double>& pb, double b_bg, double sigma, double weight);

// C_k and S_k (k = 0 … M/2) of P(B), ΔB included: P(t_k) = cos φ·C_k + sin φ·S_k.
struct PolarisationParts {
  std::vector<double> c, s;
};
PolarisationParts polarisation_parts(const PofBGrid& g, const std::vector<double>& pb);

}  // namespace tomo::musr::bmw
