// libGapIntegrals' gaps with a shape parameter a (beside compute/musr/bmw/gap_integrals.hpp):
//   TGapAnSWave       Δ_k = Δ(T)·(1 + a cos 4φ)                         (anisotropic s-wave)
//   TGapNonMonDWave1  Δ_k = Δ(T)·(a cos 2φ + (1 − a) cos 6φ)            (non-monotonic d-wave)
//   TGapNonMonDWave2  Δ_k² = Δ(T)²·(4a/27) cos² 2φ / (1 + a cos² 2φ)³
// ρ(T) = 1 − (2/π) ∫₀^{π/2} H(δ q(φ)^{1/2}) dφ, δ = Δ(T)/2k_BT, q = (Δ_k/Δ(T))², H of
// gap_integrals.hpp: the library's double integral over E and φ (its cut-offs lie where sech² <
// 1e-9 and are not applied). Arguments (Tc, Δ0, a[, c0, aG]) and Δ(T) as the other gaps.
// The two-gap d-waves (Tc, Δ0_D, Δ0_S; the 1.82, 1.018, 0.51 form of Δ(T) for both gaps):
//   TGapCosSqDWave / TGapSinSqDWave  Δ_k = Δ_D(T) cos 2φ + Δ_S(T), weight cos² φ / sin² φ,
//   ρ = 1 − (2/π) ∫₀^π w(φ) H_Y(δ_D |cos 2φ + a|) dφ with a = Δ0_S/Δ0_D and H cut at the
//   library's Y = E_c/2k_BT = (T + Δ_D)/2k_BT (T in K read as meV), which matters here (1e-5).
// ρ depends on (δ, a) only: one table over s = δ/(1 + δ) per value of a (TableKind::gap_integral,
// first argument the shape's number, second a), ∂ρ/∂a by central differences on the same grid.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "compute/musr/kt_tables.hpp"

namespace tomo::musr {

struct UserFunction;

// Numbered after GapSymmetry's tables (the table's first argument).
enum class GapShape : int { an_s_wave = 6, non_mon_d_wave1 = 7, non_mon_d_wave2 = 8, cos_sq_d_wave = 9, sin_sq_d_wave = 10 };
inline constexpr int kGapShapeFirst = 6, kGapShapeLast = 10;

// q(φ) = (Δ_k/Δ(T))².
double gap_shape_q(GapShape s, double a, double phi);
// ρ at δ = Δ/2k_BT by adaptive Gauss–Legendre quadrature split at the minima of q.
double gap_shape_density(GapShape s, double a, double delta);
// The table of ρ over s for shape `g` and parameter a (dv[1] = ∂/∂a when asked).
KtTable gap_shape_table(double g, double a, unsigned differences);

// The native user functions TGapAnSWave, TGapNonMonDWave1, TGapNonMonDWave2; nullptr otherwise.
std::shared_ptr<const UserFunction> find_gap_shape_function(std::string_view name);
std::vector<std::string> gap_shape_function_names();

}  // namespace tomo::musr
