// musrfit's libPNL_PippardFitter (ASlibs) as a native built-in user function:
// PNL_PippardFitter(E, t, D, ℓ, ξ₀, λ_L, B, φ, d [, n]) — the muon polarisation in a
// superconducting film in the non-local (Pippard) regime, computed by the library's rules:
//   ξ_P(T) = ξ₀ℓ/(ℓJ + ξ₀), J = Δ(t)/(1 − t²)·tanh(0.881925 Δ(t)/t) (t ≤ 0.96; Δ(t) the BCS gap
//   ratio of Mühlschlegel's table), λ(T) = λ_L/√(1 − tⁿ) (n = 4 by default),
//   α = (ξ_P/λ(T))²ξ_P/ξ₀; the reduced field b_k = Im DFT(q)_k, q_j = x/(x² + α k(x)),
//   x = 0.02 j, k(x) = 3/2((1 + x²) atan x − x)/x³, normalised at its largest |b_k| (k < N/2, at
//   k = s), on depths of dz = 2π ξ_P/(0.02 N) (N = `fourier_points` of nonlocal_startup.xml);
//   a film thinner than (N/2)dz is the sum of both surfaces' profiles, b(x) + b(D − x), over
//   1 + b(D); at depth x the field is b_(⌊x/dz⌋ + s) (1 for x ≤ 0, 0 beyond (N/2)dz) — here the
//   bins' middles joined by cubic Hermite pieces (PippardField), so that P is smooth in d;
//   P(t) = Σ_z n(z) cos(γ_μ B b(z − d) t + φ) over z = 0, 1, 2, … nm (musrfit's PRgeHandler
//   density n of the TRIM.SP profile of E, see compute/musr/rge_profiles.hpp) until 11 depths in a
//   row hold no muon; 1 for t ≤ 0.
// E, t, D, ℓ, ξ₀ (and n) must be known while the program is built (ProgramBuilder::known_value):
// they are folded into the table's settings; the tables C(t) = Σ n cos(ω_z t) and
// S(t) = Σ n sin(ω_z t) take (B, λ_L, d), and P = cos φ·C − sin φ·S.
// Derivatives: analytic (by λ_L through the transform of ∂q/∂λ_L).
#pragma once
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "compute/musr/kt_tables.hpp"
#include "compute/musr/user_fcn.hpp"

namespace tomo::musr::bmw {

// The settings folded into one pair of tables.
struct PippardSettings {
  int fourier_points = 262144;
  double temperature = 0.0;  // reduced, T/Tc
  double thickness = 0.0;    // nm
  double mean_free_path = 0.0, xi0 = 0.0;  // nm
  double exponent = 4.0;     // n of λ(T) = λ_L/√(1 − tⁿ)
  std::vector<double> depth_nm, density;  // the TRIM.SP profile of the energy (PRgeHandler's n_j)
  std::string where;                      // the startup file, for messages
  bool operator==(const PippardSettings&) const = default;
};

// The reduced field profile of one λ_L: b over the indices [0, b.size()), valid (the
// film's or the half-space's values) on [s, end); the library reads depth x [nm] as the bin
// b[⌊x/dz⌋ + s] (bin_value), a staircase in x; here at() joins the bins' middles by cubic Hermite
// pieces, so that P(t) and its gradient are continuous in the dead layer. db = ∂b/∂λ_L where
// asked for.
struct PippardField {
  std::vector<double> b, db;
  int shift = 0;
  std::size_t end = 0;
  double dz = 0.0;
  double reach = 0.0;  // (N/2)·dz: the field is 0 beyond
  double bin_value(double x) const;  // the library's reading
  double at(double x) const;         // 1 for x ≤ 0
  double at_lambda(double x) const;  // ∂at/∂λ_L (0 without db)
  double slope(double x) const;      // ∂at/∂x

 private:
  double interpolate(const std::vector<double>& v, double x, bool slope) const;
};

// ξ_P(T) [nm] and the field profile, as the library computes it (∂b/∂λ_L analytic: the
// transform of ∂q/∂λ_L, the normalising peak's bin held).
double pippard_xi(const PippardSettings& s);
PippardField pippard_field(const PippardSettings& s, double lambda_l, bool with_lambda_derivative = false);

// The table kinds: kPippardKind + 2·settings + part (0: C, 1: S), args (B [G], λ_L [nm], d [nm]).
inline constexpr int kPippardKind = 1300;
inline constexpr int kPippardMaxSettings = 64;
inline constexpr int kPippardKindEnd = kPippardKind + 2 * kPippardMaxSettings;
KtTable pippard_kind_table(int kind, double a0, double a1, double a2, unsigned differences);

// Bounds of the startup file's fourier_points.
inline constexpr int kPippardMinPoints = 64;
inline constexpr int kPippardMaxPoints = 1 << 24;

// The native user function with nonlocal_startup.xml `startup` (its <fourier_points> and the
// <trim_sp> profiles, read as compute/musr/rge_profiles.hpp reads them).
std::shared_ptr<const UserFunction> pippard_function(const std::filesystem::path& startup);

}  // namespace tomo::musr::bmw
