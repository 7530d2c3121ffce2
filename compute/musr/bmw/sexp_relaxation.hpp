// libBNMR's SExpRlx: β-NMR spin-lattice relaxation of ⁸Li (lifetime τ = 1.210 s) with a stretched
// exponential e^(−(λt)^β), the probes implanted at a constant rate during a beam pulse of
// length Δ. With u the time since implantation, during the pulse (0 ≤ t ≤ Δ)
//   f(t) = ∫₀ᵗ e^(−u/τ) e^(−(λu)^β) du / (τ(1 − e^(−t/τ))),
// after it (t > Δ)
//   f(t) = ∫_{t−Δ}^{t} e^(−(u − t + Δ)/τ) e^(−(λu)^β) du / (τ(1 − e^(−Δ/τ))),
// and 0 before t = 0; t, Δ in s, λ in 1/s. β = 1 is ExpRlx, λ = 0 gives 1. The library
// integrates each value with ROOT's adaptive quadrature (relative tolerance 1e-12); there is no
// closed form for β ≠ 1, so the host tabulates f once per parameter set
// (TableKind::sexp_relaxation) on a grid with Δ on a node, which every backend reads.
#pragma once
#include <memory>

#include "compute/musr/kt_tables.hpp"

namespace tomo::musr {

struct UserFunction;

// The grid: steps of at most 1 ms and 0.005/λ with Δ on a node, up to 20 s beyond the pulse
// (16.5 lifetimes; later times read the last value), at most kSexpMaxPoints points.
inline constexpr double kSexpMaxStep = 1e-3;
inline constexpr double kSexpSpan = 20.0;
inline constexpr std::size_t kSexpMaxPoints = std::size_t{1} << 17;

// f(t) computed directly (composite Gauss–Legendre quadrature), the reference for the table.
double sexp_relaxation(double t, double pulse, double lambda, double beta);

// The table of f over t (dv[0..2] = ∂f/∂Δ, ∂f/∂λ, ∂f/∂β for the bits of `differences`).
KtTable sexp_relaxation_table(double pulse, double lambda, double beta, unsigned differences);

// The native user function SExpRlx(Δ, λ, β).
std::shared_ptr<const UserFunction> sexp_relaxation_function();

}  // namespace tomo::musr
