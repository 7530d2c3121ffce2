// Straight-line statements of an expression program (value and forward-mode gradient) in the
// CUDA or GLSL dialect, with the per-bin statistic and the helper functions they call. The
// partial derivatives are those of the CPU evaluator (compute/musr/expression.cpp), op for op,
// so the three backends differ only by rounding. The runs' layout is in run_layout.cpp.
#include "compute/musr/codegen_common.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/musr/codegen_stepping.hpp"

namespace tomo::musr {

Dialect cuda_dialect(bool single_precision) {
  return single_precision ? Dialect{Dialect::Kind::cuda_float, "float"} : Dialect{Dialect::Kind::cuda_double, "double"};
}
Dialect glsl_dialect(bool double_precision) {
  return double_precision ? Dialect{Dialect::Kind::glsl_double, "double"} : Dialect{Dialect::Kind::glsl_float, "float"};
}

std::string real_literal(double v, const Dialect& d) {
  if (!std::isfinite(v)) {
    if (d.kind == Dialect::Kind::glsl_double)
      return std::isnan(v) ? "packDouble2x32(uvec2(0u, 0x7ff80000u))" : (v > 0 ? "packDouble2x32(uvec2(0u, 0x7ff00000u))" : "packDouble2x32(uvec2(0u, 0xfff00000u))");
    if (d.glsl()) return std::isnan(v) ? "uintBitsToFloat(0x7fc00000u)" : (v > 0 ? "uintBitsToFloat(0x7f800000u)" : "uintBitsToFloat(0xff800000u)");
    const char* bits = std::isnan(v) ? "0x7ff8000000000000ULL" : (v > 0 ? "0x7ff0000000000000ULL" : "0xfff0000000000000ULL");
    return str_cat("real(__longlong_as_double(", bits, "))");
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  if (d.kind == Dialect::Kind::cuda_float) s = "real(" + s + ")";  // no silent promotion to double
  if (d.kind == Dialect::Kind::glsl_double) s += "lf";
  return v < 0 ? "(" + s + ")" : s;
}

namespace {

std::string unary_call(OpCode op, const std::string& a, const Dialect& d) {
  switch (op) {
    case OpCode::asin: return d.glsl() ? "mu_asin(" + a + ")" : "asin(" + a + ")";
    case OpCode::acos: return d.glsl() ? "mu_acos(" + a + ")" : "acos(" + a + ")";
    case OpCode::neg: return "(-" + a + ")";
    case OpCode::log10_abs: return "mu_log10abs(" + a + ")";
    case OpCode::ln_abs: return "mu_lnabs(" + a + ")";
    case OpCode::sqrt_abs: return "mu_sqrtabs(" + a + ")";
    case OpCode::bessel_j0: return "mu_j0(" + a + ")";
    case OpCode::bessel_j1: return "mu_j1(" + a + ")";
    case OpCode::dawson: return "mu_dawson(" + a + ")";
    default: return d.fn(std::string(op_name(op))) + "(" + a + ")";  // cos, sin, ..., atanh, exp
  }
}

// ∂v/∂a and ∂v/∂b as text (empty: zero), matching partials() of the CPU evaluator.
void partial_text(OpCode op, const std::string& a, const std::string& b, const std::string& v, const Dialect& d,
                  std::string& pa, std::string& pb) {
  auto L = [&](double x) { return real_literal(x, d); };
  pa.clear();
  pb.clear();
  switch (op) {
    case OpCode::div: pa = "(" + L(1) + " / " + b + ")"; pb = "(-" + v + " / " + b + ")"; break;
    case OpCode::pow: pa = "mu_pow_da(" + a + ", " + b + ")"; pb = "(" + a + " > " + L(0) + " ? " + v + " * " + d.fn("log") + "(" + a + ") : " + L(0) + ")"; break;
    case OpCode::cos: pa = "(-" + d.fn("sin") + "(" + a + "))"; break;
    case OpCode::sin: pa = d.fn("cos") + "(" + a + ")"; break;
    case OpCode::tan: pa = "(" + L(1) + " + " + v + " * " + v + ")"; break;
    case OpCode::cosh: pa = d.fn("sinh") + "(" + a + ")"; break;
    case OpCode::sinh: pa = d.fn("cosh") + "(" + a + ")"; break;
    case OpCode::tanh: pa = "(" + L(1) + " - " + v + " * " + v + ")"; break;
    case OpCode::acos: pa = "(" + L(-1) + " / sqrt(" + L(1) + " - " + a + " * " + a + "))"; break;
    case OpCode::asin: pa = "(" + L(1) + " / sqrt(" + L(1) + " - " + a + " * " + a + "))"; break;
    case OpCode::atan: pa = "(" + L(1) + " / (" + L(1) + " + " + a + " * " + a + "))"; break;
    case OpCode::acosh: pa = "(" + L(1) + " / sqrt(" + a + " * " + a + " - " + L(1) + "))"; break;
    case OpCode::asinh: pa = "(" + L(1) + " / sqrt(" + a + " * " + a + " + " + L(1) + "))"; break;
    case OpCode::atanh: pa = "(" + L(1) + " / (" + L(1) + " - " + a + " * " + a + "))"; break;
    case OpCode::exp: pa = v; break;
    case OpCode::log10_abs: pa = "(" + L(1) + " / (" + a + " * " + L(std::log(10.0)) + "))"; break;
    case OpCode::ln_abs: pa = "(" + L(1) + " / " + a + ")"; break;
    case OpCode::sqrt_abs:
      pa = "(" + v + " == " + L(0) + " ? " + L(0) + " : (" + a + " < " + L(0) + " ? " + L(-0.5) + " : " + L(0.5) + ") / " + v + ")";
      break;
    case OpCode::bessel_j0: pa = "(-mu_j1(" + a + "))"; break;
    case OpCode::bessel_j1: pa = "(mu_j0(" + a + ") - (" + a + " == " + L(0) + " ? " + L(0.5) + " : mu_j1(" + a + ") / " + a + "))"; break;
    case OpCode::dawson: pa = "(" + L(1) + " - " + L(2) + " * " + a + " * " + v + ")"; break;
    default: throw Error(str_cat("musr codegen: no partial for op ", op_name(op)));
  }
}

// Names of a program's generated variables and the slots each node's derivative has.
struct Names {
  std::string prefix, decl;
  std::vector<std::vector<int>> slots;  // per node: slots whose derivative may be non-zero
  std::string V(std::int32_t i) const { return prefix + "v" + std::to_string(i); }
  std::string D(std::int32_t i, int k) const { return prefix + "d" + std::to_string(i) + "_" + std::to_string(k); }
  bool has(std::int32_t i, int k) const { return i >= 0 && std::binary_search(slots[i].begin(), slots[i].end(), k); }
};

// d<i>_k = (∂v/∂a)·d<a>_k + (∂v/∂b)·d<b>_k for the slots of unary/binary node i.
// `rcp`: the hoisted reciprocal of a division's time-independent divisor (else empty).
// `partial`: ∂v/∂a of a stepped node (Stepper), else empty.
// d<i>_k of table node i (its table MU_TAB(slot)): ∂/∂x by the interval's slope, ∂/∂ each
// argument from the table's differences.
void table_chain_rule(const Node& n, std::int32_t i, int slot, const Names& nm, std::string& out) {
  const std::string T = "MU_TAB(" + std::to_string(slot) + ")", id = std::to_string(i);
  const std::int32_t ops[4] = {n.a, n.b, n.c, n.d};
  std::string mult[4];
  for (int j = 0; j < 4; ++j) {
    bool any = false;
    for (int k : nm.slots[i]) any = any || nm.has(ops[j], k);
    if (!any) continue;
    mult[j] = nm.prefix + "pt" + id + "_" + std::to_string(j);
    out += nm.decl + mult[j] + " = " + (j == 0 ? "mu_tab_dx(" + T : "mu_tab_da(" + T + ", " + std::to_string(j - 1)) + ", " +
           nm.V(n.a) + ");\n";
  }
  for (int k : nm.slots[i]) {
    std::string e;
    for (int j = 0; j < 4; ++j)
      if (!mult[j].empty() && nm.has(ops[j], k)) e += (e.empty() ? "" : " + ") + mult[j] + " * " + nm.D(ops[j], k);
    out += nm.decl + nm.D(i, k) + " = " + e + ";\n";
  }
}

void chain_rule(const Node& n, std::int32_t i, const Names& nm, const Dialect& d, const std::string& rcp, const std::string& partial,
                std::string& out) {
  std::string expr_a, expr_b;  // per slot: multiplier of dA and dB
  if (!partial.empty()) {
    out += nm.decl + nm.prefix + "pa" + std::to_string(i) + " = " + partial + ";\n";
    expr_a = nm.prefix + "pa" + std::to_string(i);
  }
  else if (n.op == OpCode::div && !rcp.empty()) {
    expr_a = rcp;
    out += nm.decl + nm.prefix + "pb" + std::to_string(i) + " = (-" + nm.V(i) + " * " + rcp + ");\n";
    expr_b = nm.prefix + "pb" + std::to_string(i);
  }
  else if (n.op == OpCode::add) { expr_a = "1"; expr_b = "1"; }
  else if (n.op == OpCode::sub) { expr_a = "1"; expr_b = "-1"; }
  else if (n.op == OpCode::neg) { expr_a = "-1"; }
  else if (n.op == OpCode::mul) { expr_a = nm.V(n.b); expr_b = nm.V(n.a); }
  else {
    std::string pa, pb;
    partial_text(n.op, nm.V(n.a), n.b >= 0 ? nm.V(n.b) : std::string(), nm.V(i), d, pa, pb);
    const std::string id = std::to_string(i);
    if (!pa.empty()) { out += nm.decl + nm.prefix + "pa" + id + " = " + pa + ";\n"; expr_a = nm.prefix + "pa" + id; }
    if (!pb.empty()) { out += nm.decl + nm.prefix + "pb" + id + " = " + pb + ";\n"; expr_b = nm.prefix + "pb" + id; }
  }
  auto term = [&](const std::string& m, std::int32_t o, int k) -> std::string {
    if (m.empty() || !nm.has(o, k)) return {};
    if (m == "1") return nm.D(o, k);
    if (m == "-1") return "-" + nm.D(o, k);
    return m + " * " + nm.D(o, k);
  };
  for (int k : nm.slots[i]) {
    std::string ta = term(expr_a, n.a, k), tb = term(expr_b, n.b, k);
    std::string e = ta.empty() ? tb : tb.empty() ? ta : ta + (tb[0] == '-' ? " " : " + ") + tb;
    out += nm.decl + nm.D(i, k) + " = " + (e[0] == '-' ? "(" + e + ")" : e) + ";\n";
  }
}

}  // namespace

ModelCode emit_model(const Program& p, const Dialect& d, bool with_gradient, const std::string& prefix,
                     const ParamText& param_text, const std::string& time_var, const Stepping* stepping) {
  ModelCode code;
  code.used = p.params_used();
  std::vector<int> slot_of(static_cast<std::size_t>(std::max(p.num_params, 0)), -1);
  for (std::size_t k = 0; k < code.used.size(); ++k) slot_of[code.used[k]] = static_cast<int>(k);
  Names nm{prefix, d.glsl() ? "real " : "const real ", std::vector<std::vector<int>>(p.nodes.size())};
  const std::string& decl = nm.decl;
  auto V = [&](std::int32_t i) { return nm.V(i); };
  auto D = [&](std::int32_t i, int k) { return nm.D(i, k); };
  auto has = [&](std::int32_t i, int k) { return nm.has(i, k); };
  auto& slots = nm.slots;
  std::unique_ptr<Stepper> stepper;
  if (stepping != nullptr && !d.glsl()) stepper = std::make_unique<Stepper>(p, d, prefix, *stepping, time_var);
  int tables = 0;  // table nodes so far: node i's table is MU_TAB(its ordinal)

  for (std::size_t ui = 0; ui < p.nodes.size(); ++ui) {
    const auto i = static_cast<std::int32_t>(ui);
    const Node& n = p.nodes[ui];
    std::string& out = n.time_dependent ? code.per_bin : code.invariant;
    std::string value, rcp;
    if (n.op == OpCode::div && d.hoist_reciprocals && n.time_dependent && n.b >= 0 && !p.nodes[static_cast<std::size_t>(n.b)].time_dependent) {
      rcp = prefix + "r" + std::to_string(i);
      code.invariant += decl + rcp + " = " + real_literal(1, d) + " / " + V(n.b) + ";\n";
    }
    switch (n.op) {
      case OpCode::constant: value = real_literal(n.value, d); break;
      case OpCode::param:
        if (n.index < 0 || n.index >= p.num_params) throw Error(str_cat("musr codegen: parameter ", n.index, " outside the program"));
        value = param_text(n.index, slot_of[n.index]);
        if (with_gradient) slots[ui] = {slot_of[n.index]};
        break;
      case OpCode::time: value = time_var; break;
      case OpCode::add: case OpCode::sub: case OpCode::mul: case OpCode::div: {
        const char* sym = n.op == OpCode::add ? " + " : n.op == OpCode::sub ? " - " : n.op == OpCode::mul ? " * " : " / ";
        value = rcp.empty() ? "(" + V(n.a) + sym + V(n.b) + ")" : "(" + V(n.a) + " * " + rcp + ")";
        break;
      }
      case OpCode::pow: value = "mu_pow(" + V(n.a) + ", " + V(n.b) + ")"; break;
      case OpCode::select: value = "(" + V(n.a) + " >= " + real_literal(0, d) + " ? " + V(n.b) + " : " + V(n.c) + ")"; break;
      case OpCode::table: value = "mu_tab(MU_TAB(" + std::to_string(tables) + "), " + V(n.a) + ")"; break;
      default: value = unary_call(n.op, V(n.a), d);
    }
    std::string partial;  // ∂v/∂a of a stepped cos/sin
    if (!stepper || !stepper->emit(i, code, partial)) out += decl + V(i) + " = " + value + ";\n";
    if (stepper) stepper->track(i, V(i), rcp, code);
    const int table_slot = n.op == OpCode::table ? tables++ : -1;
    code.tables = tables;
    if (!with_gradient || n.op == OpCode::constant || n.op == OpCode::time) continue;
    if (n.op == OpCode::param) {
      out += decl + D(i, slots[ui][0]) + " = " + real_literal(1, d) + ";\n";
      continue;
    }
    // Slots of the result: the union of the operands' (select: of its two branches).
    std::vector<int> s;
    for (auto o : n.op == OpCode::select  ? std::vector<std::int32_t>{n.b, n.c}
                  : n.op == OpCode::table ? std::vector<std::int32_t>{n.a, n.b, n.c, n.d}
                                          : std::vector<std::int32_t>{n.a, n.b})
      if (o >= 0) s.insert(s.end(), slots[o].begin(), slots[o].end());
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    slots[ui] = s;
    if (s.empty()) continue;
    const std::string zero = real_literal(0, d);
    auto Dor0 = [&](std::int32_t o, int k) { return has(o, k) ? D(o, k) : zero; };
    if (n.op == OpCode::select) {
      for (int k : s) out += decl + D(i, k) + " = (" + V(n.a) + " >= " + zero + " ? " + Dor0(n.b, k) + " : " + Dor0(n.c, k) + ");\n";
      continue;
    }
    if (n.op == OpCode::table) table_chain_rule(n, i, table_slot, nm, out);
    else chain_rule(n, i, nm, d, rcp, partial, out);
  }
  if (p.output < 0 || p.output >= static_cast<std::int32_t>(p.nodes.size())) throw Error("musr codegen: program has no output");
  code.value = V(p.output);
  if (with_gradient)
    for (std::size_t k = 0; k < code.used.size(); ++k)
      code.gradient.push_back(has(p.output, static_cast<int>(k)) ? D(p.output, static_cast<int>(k)) : real_literal(0, d));
  return code;
}

std::string statistic_code(Statistic s, const Dialect& d, bool gradient, const std::string& indent, const std::string& name) {
  auto L = [&](double x) { return real_literal(x, d); };
  const std::string decl = d.glsl() ? "real " : "const real ";
  const std::string acc = d.glsl() || name != "acc" ? "" : "(double)";  // CUDA accumulates in double
  std::string out;
  if (s == Statistic::chi2) {
    out = indent + decl + "res = yw.x - th;\n" + indent + name + "[0] += " + acc + "(yw.y * res * res);\n";
    if (gradient) out += indent + decl + "c = " + L(-2) + " * yw.y * res;\n";
    return out;
  }
  // musrfit's max-likelihood on counts yc = scale·y, θc = scale·θ; bins with θc ≤ 0 skipped,
  // the log term dropped where yc ≤ 1e-9.
  out = indent + decl + "yc = real(R.scale) * yw.x;\n" + indent + decl + "thc = real(R.scale) * th;\n" + indent +
        "if (!(thc > " + L(0) + ")) continue;\n" + indent + name + "[0] += " + L(2) + " * " + acc + "((thc - yc) + (yc > " + L(1e-9) +
        " ? yc * " + d.fn("log") + "(yc / thc) : " + L(0) + "));\n";
  if (gradient) out += indent + decl + "c = " + L(2) + " * real(R.scale) * (" + L(1) + " - yc / thc);\n";
  return out;
}

std::string gradient_accumulate(const ModelCode& m, const Dialect& d, const std::string& indent, const std::string& name) {
  std::string out;
  for (std::size_t k = 0; k < m.gradient.size(); ++k)
    out += str_cat(indent, name, "[", k + 1, "] += ", d.glsl() || name != "acc" ? "" : "(double)", "(c * ", m.gradient[k], ");\n");
  return out;
}

std::string helper_functions(const Dialect& d) {
  if (d.kind == Dialect::Kind::glsl_double) return {};
  if (!d.glsl()) {
    const bool f = d.single();
    return str_cat(
        "__device__ __forceinline__ real mu_pow(real a, real b) { return pow(a, b); }\n"
        "__device__ __forceinline__ real mu_pow_da(real a, real b) { return b == real(0) ? real(0) : b * pow(a, b - real(1)); }\n"
        "__device__ __forceinline__ real mu_log10abs(real a) { return log10(fabs(a)); }\n"
        "__device__ __forceinline__ real mu_lnabs(real a) { return log(fabs(a)); }\n"
        "__device__ __forceinline__ real mu_sqrtabs(real a) { return sqrt(fabs(a)); }\n"
        "__device__ __forceinline__ real mu_j0(real a) { return ", f ? "j0f" : "j0", "(a); }\n"
        "__device__ __forceinline__ real mu_j1(real a) { return ", f ? "j1f" : "j1", "(a); }\n");
  }
  // GLSL has no Bessel functions and leaves pow(a<0, b) undefined: C's semantics written out
  // (|x| > 1 in asin/acos gives a number here, NaN in C: outside every theory's domain).
  // J0, J1: Abramowitz & Stegun 9.4.1–9.4.6 (absolute error < 5e-8, below float rounding).
  return R"(float mu_pow(float a, float b) {
  if (a > 0.0) return pow(a, b);
  if (a == 0.0) return b > 0.0 ? 0.0 : (b == 0.0 ? 1.0 : uintBitsToFloat(0x7f800000u));
  if (b != floor(b)) return uintBitsToFloat(0x7fc00000u);
  float m = pow(-a, b);
  return mod(b, 2.0) == 0.0 ? m : -m;
}
float mu_pow_da(float a, float b) { return b == 0.0 ? 0.0 : b * mu_pow(a, b - 1.0); }
float mu_log10abs(float a) { return log2(abs(a)) * 0.30102999566398120; }
float mu_lnabs(float a) { return log(abs(a)); }
float mu_sqrtabs(float a) { return sqrt(abs(a)); }
// Mesa's asin/acos are accurate to ~1e-4 only (GLSL allows it); its two-argument atan is not.
float mu_asin(float x) { return atan(x, sqrt(max(0.0, 1.0 - x * x))); }
float mu_acos(float x) { return atan(sqrt(max(0.0, 1.0 - x * x)), x); }
float mu_j0(float x) {
  float ax = abs(x);
  if (ax <= 3.0) {
    float y = (x / 3.0) * (x / 3.0);
    return 1.0 + y * (-2.2499997 + y * (1.2656208 + y * (-0.3163866 + y * (0.0444479 + y * (-0.0039444 + y * 0.0002100)))));
  }
  float y = 3.0 / ax;
  float f = 0.79788456 + y * (-0.00000077 + y * (-0.00552740 + y * (-0.00009512 + y * (0.00137237 + y * (-0.00072805 + y * 0.00014476)))));
  float th = ax - 0.78539816 + y * (-0.04166397 + y * (-0.00003954 + y * (0.00262573 + y * (-0.00054125 + y * (-0.00029333 + y * 0.00013558)))));
  return f * cos(th) / sqrt(ax);
}
float mu_j1(float x) {
  float ax = abs(x);
  if (ax <= 3.0) {
    float y = (x / 3.0) * (x / 3.0);
    return x * (0.5 + y * (-0.56249985 + y * (0.21093573 + y * (-0.03954289 + y * (0.00443319 + y * (-0.00031761 + y * 0.00001109))))));
  }
  float y = 3.0 / ax;
  float f = 0.79788456 + y * (0.00000156 + y * (0.01659667 + y * (0.00017105 + y * (-0.00249511 + y * (0.00113653 - y * 0.00020033)))));
  float th = ax - 2.35619449 + y * (0.12499612 + y * (0.00005650 + y * (-0.00637879 + y * (0.00074348 + y * (0.00079824 - y * 0.00029166)))));
  float r = f * cos(th) / sqrt(ax);
  return x < 0.0 ? -r : r;
}
)";
}

}  // namespace tomo::musr
