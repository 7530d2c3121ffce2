// Sub-tree builders of the predefined THEORY functions beyond the basic ones of
// theory_functions.cpp (one file per family); each returns the node of fn at shifted time tt
// (t − tshift, or t) with `t` the unshifted time for the functions whose guards read it.
#pragma once
#include <cstdint>
#include <span>

#include "compute/musr/expression.hpp"

namespace tomo::musr {

// statGssKTLF, statExpKTLF, dynGssKTLF, dynExpKTLF (theory_kt_lf.cpp).
std::int32_t build_kt_lf(ProgramBuilder& b, TheoryFn fn, std::span<const std::int32_t> a, std::int32_t tt, std::int32_t t);
// spinGlass, rdAnisoHf, internFldGK, internFldLL, skewedGss, the Noakes–Kalvius functions and
// muMinusExpTF (theory_more.cpp).
std::int32_t build_more_theory(ProgramBuilder& b, TheoryFn fn, std::span<const std::int32_t> a, std::int32_t tt,
                               std::int32_t t);

// Small helpers shared by the builders.
inline std::int32_t abs_of(ProgramBuilder& b, std::int32_t x) { return b.select(x, x, b.unary(OpCode::neg, x)); }
inline std::int32_t exp_neg(ProgramBuilder& b, std::int32_t x) { return b.unary(OpCode::exp, b.unary(OpCode::neg, x)); }
// ⅓ + ⅔(1 − u)e^(−w)
inline std::int32_t kt_shape(ProgramBuilder& b, std::int32_t u, std::int32_t w) {
  auto body = b.mul(b.sub(b.constant(1.0), u), exp_neg(b, w));
  return b.add(b.constant(1.0 / 3.0), b.mul(b.constant(2.0 / 3.0), body));
}

}  // namespace tomo::musr
