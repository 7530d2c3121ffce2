// libFitPofB's TLondon1DHS as a native built-in user function: the muon polarisation in a
// superconducting half-space below a dead layer, TLondon1DHS(φ, E, B₀, d, λ) (φ in degrees, E in
// keV, B₀ in G, d and λ in nm), computed as the library does from BMW_startup.xml's settings:
//   P(B) of the London profile (compute/musr/bmw/london_1d.hpp) over the TRIM.SP profile of E
//   (compute/musr/bmw/trim_sp_data.hpp), the dead layer's fraction of the muons mixed in as a
//   Gaussian of width 0.005 µs⁻¹ at B₀, and P(t) = cos φ·C(t) + sin φ·S(t) by one real FFT
//   (compute/musr/bmw/field_distribution.hpp); cos φ before t = 0.
// C and S are tables over t of (B₀, d, λ) for each profile's energy (a table has three
// arguments): the program selects the table of the first energy within 0.05 keV of E and hands
// the others the arguments (0, 0, 0), whose table is zero and costs nothing; one more table
// node checks the arguments (an energy without a profile, B₀ or λ not positive: one line).
// Derivatives: central differences of C and S in each argument.
#pragma once
#include <filesystem>
#include <memory>

#include "compute/musr/kt_tables.hpp"

namespace tomo::musr {
struct UserFunction;
}

namespace tomo::musr::bmw {

// The table kinds (compute/musr/kt_tables.hpp's dispatch through vortex_kind_table): from this
// number on, kLondonKindStride per startup file: 2·profile + part (0: C, 1: S), then the check.
inline constexpr int kLondonKindBase = 4096;
inline constexpr int kLondonMaxProfiles = 1000;
inline constexpr int kLondonKindStride = 2 * kLondonMaxProfiles + 1;

// The table of kind `kind` (≥ kLondonKindBase) at (a0, a1, a2); dv[j] for each bit j of `differences`.
KtTable london_kind_table(int kind, double a0, double a1, double a2, unsigned differences);

// The native user function TLondon1DHS with the settings and profiles of `startup`.
std::shared_ptr<const UserFunction> london_hs_function(const std::filesystem::path& startup);
// TLondon1D1L(φ, E, B₀, d, t, λ): the same for a film of thickness t from d on (LondonFilm), the
// muons of the dead layer and of the substrate beyond d + t mixed in at B₀ as the library does.
// t must be known while the program is built (a constant or a fixed parameter:
// ProgramBuilder::known_value); each thickness registers its own settings.
std::shared_ptr<const UserFunction> london_film_function(const std::filesystem::path& startup);
// TLondon1D2L(φ, E, B₀, d, t₁, t₂, λ₁, λ₂) (layers 2), TLondon1D3L(φ, E, B₀, d, t₁, t₂, t₃, λ₁,
// λ₂, λ₃) (3) and TLondon1D3LS(φ, E, B₀, d, t₁, t₂, t₃, λ₁, λ₂) (4, λ₃ = λ₁): the same for two or
// three London layers (compute/musr/bmw/london_1d.hpp), the dead layer's and the substrate's
// muons at B₀. Every argument from B₀ on that is known while the program is built is folded into
// the tables' settings; at most three may be free (the tables' arguments), else one line.
std::shared_ptr<const UserFunction> london_layers_function(const std::filesystem::path& startup, int layers);

}  // namespace tomo::musr::bmw
