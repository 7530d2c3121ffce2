// The field distribution of a triangular Abrikosov vortex lattice and its muon polarisation
// (the physics of libFitPofB's TBulkTriVortexLondon / TBulkTriVortexML, written from the
// models, not from that code): B(r) = Σ_G B_G cos(G·r) over the reciprocal lattice, by one 2D
// FFT on an N × N grid of the rectangular cell (a × √3 a, two vortices), then P(B) as a
// histogram of width ΔB, then P(t) = Σ_B P(B) cos(2π γ_μ B t + φ).
//
//   London:           B_G = ⟨B⟩ / (1 + λ²G²)
//   modified London:  B_G = ⟨B⟩ exp(−ξ²G² / (2(1 − b))) / (1 + λ²G² / (1 − b)),  b = ⟨B⟩/B_c2,
//                     B_c2 = Φ0 / (2π ξ²)
// Lengths in nm, fields in G, t in µs, φ in degrees. Where ⟨B⟩ ≥ B_c2 or λ < ξ/√2 (no vortex
// lattice) the field is ⟨B⟩ everywhere. These are table producers: a theory evaluates them
// once per parameter change and reads P(t) per bin.
#pragma once
#include <span>
#include <vector>

namespace tomo::musr::bmw {

inline constexpr double kFluxQuantum = 2.067833848e7;  // Φ0 in G·nm²

enum class VortexModel { london, modified_london };

struct VortexLatticeParams {
  VortexModel model = VortexModel::modified_london;
  double field = 0.0;   // ⟨B⟩, G
  double lambda = 0.0;  // penetration depth, nm
  double xi = 0.0;      // coherence length, nm (London: unused)
  int grid = 512;       // N: N × N points of the rectangular cell (even, 8 … 4096)
};

// B at the grid points x_i = i·a/N, y_j = j·√3a/N, row-major (j·N + i), in G.
// Throws InputError for a non-finite or non-positive field or λ, a negative ξ, or a bad grid.
std::vector<double> triangular_vortex_field(const VortexLatticeParams& p);

// A normalised histogram: bin k holds the fraction of points with B in [b0 + k·db, b0 + (k+1)·db)
// and stands for the field b0 + (k + at)·db: at = ½ the centre; libFitPofB fills bin ⌈B/ΔB⌉
// and gives it the field ⌈B/ΔB⌉·ΔB, the upper edge (at = 1), which shifts every field by ΔB/2.
struct FieldDistribution {
  double b0 = 0.0, db = 0.0;
  double at = 0.5;
  std::vector<double> p;
  double field(std::size_t k) const { return b0 + (static_cast<double>(k) + at) * db; }
  double mean() const;
  double variance() const;  // of the bins' fields
};
FieldDistribution field_distribution(std::span<const double> field, double db, double at = 0.5);

// P(t) = Σ_k p_k cos(2π γ_μ B_k t + φ) with B_k = field(k) (γ_μ/2π in MHz/G).
void polarization(const FieldDistribution& d, double phase_deg, std::span<const double> t, std::span<double> out);

}  // namespace tomo::musr::bmw
