// libFitPofB's TBulkTriVortexML as a native built-in user function: the muon polarisation of a
// triangular modified-London vortex lattice, TBulkTriVortexML(φ, ⟨B⟩, λ, ξ) (φ in degrees, ⟨B⟩
// in G, λ and ξ in nm), computed as the library does from the settings of BMW_startup.xml:
//   1. B(r) on the N × N grid of compute/musr/bmw/vortex_lattice.hpp (the library's grid, up to
//      a transpose: its rows run along a, ours along √3a);
//   2. P(B): the grid's quarter [0, N/2)² (a quarter cell, which the lattice's mirror planes
//      repeat) histogrammed into bins of ΔB, each point at the bin ⌈|B|/ΔB⌉, field ⌈|B|/ΔB⌉·ΔB,
//      over M = 1/(γ̄ Δt ΔB) bins (rounded up to even, γ̄ = 0.0135538817 MHz/G, the library's);
//   3. P(t_i) = Σ_k p_k cos(2π ik/M + φ) at t_i = i / (γ̄ (M − 1) ΔB) — one real FFT of P(B), whose
//      time axis the library labels with M − 1 where the transform has M — read by linear
//      interpolation, and cos φ for t < 0.
// The two tables C_i = Σ p_k cos(2π ik/M), S_i = −Σ p_k sin(2π ik/M) depend on (⟨B⟩, λ, ξ) only
// (TableKind::vortex_lattice), so a change of φ alone costs no new lattice:
// P = cos φ · C + sin φ · S. Derivatives: analytic, from the grids of ∂B/∂(⟨B⟩, λ, ξ) with each
// point kept in its bin (the histogram itself is a staircase in the arguments, whose differences
// are noise).
#pragma once
#include <filesystem>
#include <memory>

#include "compute/musr/kt_tables.hpp"

namespace tomo::musr {
struct UserFunction;
}

namespace tomo::musr::bmw {

inline constexpr double kFitPofBGammaBar = 0.0135538817;  // γ̄ = γ_μ/2π of libFitPofB, MHz/G

struct VortexTableSettings {
  double delta_t = 0.01;  // µs
  double delta_b = 0.5;   // G
  int grid = 512;
  bool operator==(const VortexTableSettings&) const = default;
};

// Settings sets live for the process and are named by a small index (at most 64).
int register_vortex_settings(const VortexTableSettings& s);

// The table of the library's P(t) part `part` (0: C, 1: S) at (⟨B⟩, λ, ξ) for settings `id`;
// dv[j] for each bit j of `differences`.
KtTable tri_vortex_ml_table(int id, int part, double field, double lambda, double xi, unsigned differences);

// The table kind of (settings id, part): TableKind::vortex_lattice + 2·id + part.
int vortex_table_kind(int id, int part);
// kt_tables' dispatch: kinds from TableKind::vortex_lattice on (mean_fields.hpp's range among them).
KtTable vortex_kind_table(int kind, double a0, double a1, double a2, unsigned differences);

// The native user function TBulkTriVortexML with the settings of `startup` (BMW_startup.xml).
std::shared_ptr<const UserFunction> tri_vortex_ml_function(const std::filesystem::path& startup);

}  // namespace tomo::musr::bmw
