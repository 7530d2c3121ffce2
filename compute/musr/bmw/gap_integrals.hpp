// libGapIntegrals' superfluid-density functions (BMW): the normalised superfluid density
// ρ(T) = 1 − ⟨w⟩-weighted ∫₀^∞ (1/2k_BT) sech²(√(E² + Δ_k(T)²)/2k_BT) dE of a gap with symmetry k,
// as a function of the temperature T (K, the x of a fittype-8 run). With y = E/2k_BT and
// δ = Δ(T)/2k_BT the integral depends on δ alone:
//   ρ = 1 − c ∫₀¹ w(z) H(δ|g(z)|) dz,  H(D) = ∫₀^∞ sech²(√(y² + D²)) dy,
// s-wave g = 1; d-wave g = cos πz (w = c = 1); point p-wave g = √(1 − z²), line p-wave g = z, each
// with w = 1 − z², c = 3/2 (a,b axes) or w = z², c = 3 (c axis). The temperature dependence of
// the gap is the library's: Δ(T) = Δ0 tanh(c0 √(aG (Tc/T − 1))) (Prozorov–Giannetta) or, without
// c0 and aG, Δ0 tanh(1.82 (1.018 (Tc/T − 1))^0.51) (Carrington–Manzano); ρ = 1 for T ≤ 0 and 0 for
// T ≥ Tc. ρ(δ) is one table over s = δ/(1 + δ) ∈ [0, 1] per symmetry, built once per process
// (TableKind::gap_integral), which every backend reads; Δ(T) and s are nodes of the program.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "compute/musr/kt_tables.hpp"

namespace tomo::musr {

struct UserFunction;

enum class GapSymmetry : int { s_wave = 0, d_wave = 1, point_p_ab = 2, point_p_c = 3, line_p_ab = 4, line_p_c = 5 };

// The table's grid over s: 4096 steps (interpolation error below 1e-7).
inline constexpr std::size_t kGapTableSteps = 4096;

// H(D) by composite Gauss–Legendre quadrature (the reference for the cached interpolant).
double gap_sech_integral(double d);
// ρ at δ = Δ/2k_BT, computed directly.
double gap_superfluid_density(GapSymmetry g, double delta);
// The table of ρ over s for symmetry `g` (a0; a1, a2 unused), from a per-process cache; a0 from
// kGapShapeFirst on: gap_shapes.hpp's shaped gaps, a1 their parameter.
KtTable gap_integral_table(double g, double a1, double a2, unsigned differences);

// The native user functions TGapSWave, TGapDWave, TGapPointPWave, TGapLinePWave and the closed
// forms TGapPowerLaw (Tc, n: 1 − (T/Tc)^n) and TGapDirtySWave (Δ(T)/Δ0 · tanh(Δ(T)/2k_BT));
// nullptr for another name.
std::shared_ptr<const UserFunction> find_gap_function(std::string_view name);
std::vector<std::string> gap_function_names();

}  // namespace tomo::musr
