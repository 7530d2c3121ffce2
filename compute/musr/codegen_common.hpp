// What the CUDA and GLSL code generators share: one expression program written out as
// straight-line statements (value and forward-mode gradient), in either dialect.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "compute/musr/expression.hpp"
#include "compute/musr/fit_problem.hpp"

namespace tomo::musr {

// How a dialect spells what the generated statements need.
struct Dialect {
  enum class Kind { cuda_double, cuda_float, glsl_float, glsl_double } kind = Kind::cuda_double;
  std::string real;  // "double" / "float"
  // cuda_float: exp, sin and cos as the hardware's approximations (__expf, __sinf, __cosf: a
  // few ulp, absolute 2^-21.4 for sin/cos) instead of the IEEE-accurate library functions.
  bool fast_math = false;
  // A division by a time-independent node becomes a product with its reciprocal, computed once
  // outside the bin loop (≤ 1 ulp more rounding; a division costs 10–20 instructions a bin).
  bool hoist_reciprocals = false;
  bool glsl() const { return kind == Kind::glsl_float || kind == Kind::glsl_double; }
  bool single() const { return kind == Kind::cuda_float || kind == Kind::glsl_float; }
  // GLSL has no double transcendentals: glsl_double calls musr/double_math.glsl's mu_<name>.
  std::string fn(const std::string& name) const {
    if (kind == Kind::glsl_double) return "mu_" + name;
    if (fast_math && kind == Kind::cuda_float && (name == "exp" || name == "sin" || name == "cos")) return "__" + name + "f";
    return name;
  }
};
Dialect cuda_dialect(bool single_precision);
Dialect glsl_dialect(bool double_precision = false);

// A literal of `v` in the dialect's real type: full precision, always with '.' or an exponent
// (so 1/3 can never become integer division), inf and NaN by bit pattern.
std::string real_literal(double v, const Dialect& d);

// The statements of one program. Nodes become `const real <prefix>v<i>` and, with a gradient,
// `<prefix>d<i>_<slot>` for the parameter slots that can reach them (slot k = used()[k]).
// Time-independent nodes go to `invariant` (hoisted out of the bin loop by the caller),
// the rest to `per_bin`. `param_text(index, slot)` is the text that reads a parameter (a real),
// `time_var` is t.
struct ModelCode {
  std::string invariant;
  std::string per_bin;
  // Stepping (below) only: per-block constants after `invariant`, and the values carried from
  // bin to bin, declared once per Pack before its bins.
  std::string step_setup;
  std::string step_state;
  int stepped = 0;  // nodes computed by stepping
  std::string value;                  // the output's value expression
  std::vector<std::string> gradient;  // per slot: the output's derivative expression ("0" where none)
  std::vector<int> used;              // parameter index of each slot
  // Table nodes (OpCode::table): the statements read table s through the dialect's
  // mu_tab(MU_TAB(s), x), mu_tab_dx and mu_tab_da(MU_TAB(s), j, x), which the kernel defines.
  int tables = 0;
};
using ParamText = std::function<std::string(int index, int slot)>;
// Fewer hardware-function ops over consecutive, evenly spaced bins (CUDA v2, all runs affine):
// exp(X) with X a polynomial in t of degree 1 is e₀·rʲ (r = e^(β·dt), one constant a block), of
// degree 2 a second-order product (e_{j+1} = e_j·q_j, q_{j+1} = q_j·e^(2γ·dt²)); cos and sin of
// a linear argument rotate by (cos ω·dt, sin ω·dt) (the derivative uses the other one). Where
// `first` holds (a Pack's first bin) the functions are evaluated as before, so rounding errors
// grow over at most the bins of one Pack. Degrees are found on the expression program: +, −, ×,
// ÷ by a time-independent node of t and time-independent nodes.
struct Stepping {
  std::string first = "j == 0";  // true at the first bin of a run of consecutive bins
  std::string step = "R.dt";     // the time between consecutive bins, a double expression
  // The per-block step factors (e^(β·dt), cos/sin(ω·dt), …) by the float library functions
  // (expf, cosf, sinf: ≤ 2 ulp) instead of double ones, where the real type is float: a float
  // step factor is rounded to float either way, and each thread of every block computes them.
  bool float_setup = false;
};
ModelCode emit_model(const Program& p, const Dialect& d, bool with_gradient, const std::string& prefix,
                     const ParamText& param_text, const std::string& time_var, const Stepping* stepping = nullptr);

// The per-bin statistic after `th` (θ) and `yw` (y, 1/σ²) are set, with `R.scale` the run's
// scale: adds the bin's term to acc[0] (a double on CUDA) and, with a gradient, sets `c`, the
// factor of ∂θ/∂p in the term's derivative; bins with θc ≤ 0 are skipped (`continue`).
// Then gradient_accumulate() adds c·∂θ/∂p_k to acc[1 + k]. `acc` names another accumulator
// array of the dialect's real type (no conversion to double).
std::string statistic_code(Statistic s, const Dialect& d, bool gradient, const std::string& indent,
                           const std::string& acc = "acc");
std::string gradient_accumulate(const ModelCode& m, const Dialect& d, const std::string& indent,
                                const std::string& acc = "acc");

// Helper functions the statements call (mu_pow, mu_j0, ...), defined for the dialect
// (glsl_double: none, shaders/musr/double_math.glsl defines them all).
std::string helper_functions(const Dialect& d);

}  // namespace tomo::musr
