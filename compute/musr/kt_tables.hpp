// The numerically integrated parts of musrfit's longitudinal-field Kubo–Toyabe functions
// (statGssKTLF, statExpKTLF, dynGssKTLF, dynExpKTLF): the static LF integrals and the
// strong-collision (Volterra equation) solutions, sampled on musrfit's time grids and read by
// linear interpolation, as musrfit [Suter2012] does. A table depends on the parameters only, so
// it is built once per parameter set (a small process-wide cache) and every backend reads the
// same numbers: the cpu here, the GPU kernels from an uploaded copy.
#pragma once
#include <array>
#include <cstddef>
#include <memory>
#include <vector>

namespace tomo::musr {

enum class TableKind : int {
  gauss_lf_integral = 0,    // args (ν₀ [MHz], Δ [1/µs]): ∫₀ᵗ 2Δ⁴/ω₀³ e^(−Δ²τ²/2) sin(ω₀τ) dτ
  lorentz_lf_integral = 1,  // args (ν₀, a): ∫₀ᵗ a(1 + a²/ω₀²) e^(−aτ) sin(ω₀τ)/(ω₀τ) dτ
  dyn_gauss_lf = 2,         // args (ν₀, Δ, ν): strong-collision Gaussian KT in field ν₀/γ_μ
  dyn_lorentz_lf = 3,       // args (ν₀, a, ν): the same for the Lorentzian (exponential) KT
  // Native built-in user functions (compute/musr/bmw/): their own builders and derivatives.
  depth_fraction = 4,       // args (z_a, z_b [nm], profile set): PDepthProfile's layer weight over E [keV]
  sexp_relaxation = 5,      // args (Δ [s], λ [1/s], β): libBNMR's SExpRlx over t [s]
  gap_integral = 6,         // args (GapSymmetry, 0, 0): libGapIntegrals' ρ over s = δ/(1 + δ)
  // Last (the numbers from it on): TBulkTriVortexML's P(t) parts (compute/musr/bmw/tri_vortex_ml.hpp).
  vortex_lattice = 7,       // args (⟨B⟩ [G], λ, ξ [nm]); kind 7 + 2·settings + part
};
inline constexpr int kTableKinds = 8;

// A function sampled at t_i = i·dt (i = 0 … n−1, t in µs) and, when built for a gradient, its
// central differences with respect to the three arguments at the same points.
struct KtTable {
  double dt = 1.0;
  std::vector<double> v;
  std::array<std::vector<double>, 3> dv;  // empty without a gradient
  unsigned differences = 0;               // the arguments whose dv were computed (bits)
};

// musrfit's lookup: 0 for x < 0, the last value from the last interval on, else the linear
// interpolation between v[⌊x/dt⌋] and the next point.
double kt_lookup(const std::vector<double>& v, double dt, double x);
// ∂kt_lookup/∂x: the interval's slope (0 outside the table).
double kt_slope(const std::vector<double>& v, double dt, double x);

// The table of `kind` at (a0, a1, a2) from the cache (thread-safe); dv[j] too for each bit j of
// `differences` (the arguments a gradient needs; the others' dv stay zero).
std::shared_ptr<const KtTable> kt_table(TableKind kind, double a0, double a1, double a2, unsigned differences = 0);

// Bounds that keep a table's cost finite: musrfit's LF integral runs to 20 µs in steps down to
// 1/(3000Δ) (points capped here), its Volterra grid has up to 10⁶ points and costs n² (capped
// here at 32768 points: 20 µs in steps of 0.6 ns, ν₀ up to 100 MHz).
inline constexpr std::size_t kMaxLfIntegralPoints = std::size_t{1} << 22;
inline constexpr std::size_t kMaxVolterraPoints = std::size_t{1} << 15;

// The building blocks (tests): the sampled static integral with its step, and the Volterra solution.
KtTable lf_integral(TableKind kind, double nu0, double rate);
KtTable dynamic_kt_lf(TableKind kind, double nu0, double rate, double hop);

}  // namespace tomo::musr
