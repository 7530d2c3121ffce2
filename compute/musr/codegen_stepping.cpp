// Stepped exp/cos/sin (codegen_stepping.hpp): degrees and coefficients of the nodes' polynomial
// forms in t, and the stepped statements of the nodes whose argument has one.
#include "compute/musr/codegen_stepping.hpp"

#include <algorithm>

#include "compute/core/log.hpp"

namespace tomo::musr {

void Stepper::track(std::int32_t i, const std::string& v, const std::string& rcp, ModelCode& code) {
  const Node& n = p_.nodes[static_cast<std::size_t>(i)];
  Poly& q = poly_[static_cast<std::size_t>(i)];
  if (!n.time_dependent) {
    q.deg = 0, q.c[0] = v;
    return;
  }
  const Poly* a = n.a >= 0 ? &poly_[static_cast<std::size_t>(n.a)] : nullptr;
  const Poly* b = n.b >= 0 ? &poly_[static_cast<std::size_t>(n.b)] : nullptr;
  switch (n.op) {
    case OpCode::time: q.deg = 1, q.c[1] = real_literal(1, d_); break;
    case OpCode::add: case OpCode::sub:
      if (a->deg < 0 || b->deg < 0) break;
      q.deg = std::max(a->deg, b->deg);
      for (int k = 0; k < 3; ++k) q.c[k] = sum(a->c[k], b->c[k], n.op == OpCode::sub ? '-' : '+');
      break;
    case OpCode::neg:
      if (a->deg < 0) break;
      q.deg = a->deg;
      for (int k = 0; k < 3; ++k) q.c[k] = a->c[k].empty() ? "" : "(-" + a->c[k] + ")";
      break;
    case OpCode::mul:
      if (a->deg < 0 || b->deg < 0 || a->deg + b->deg > 2) break;
      q.deg = a->deg + b->deg;
      for (int k = 0; k <= q.deg; ++k)
        for (int u = 0; u <= k; ++u) q.c[k] = sum(q.c[k], prod(a->c[u], b->c[k - u]), '+');
      break;
    case OpCode::div:
      if (a->deg < 0 || b->deg != 0) break;
      q.deg = a->deg;
      for (int k = 0; k < 3; ++k) q.c[k] = rcp.empty() ? (a->c[k].empty() ? "" : "(" + a->c[k] + " / " + b->c[0] + ")") : prod(a->c[k], rcp);
      break;
    default: break;
  }
  // Name the coefficients once (per block), so that users' texts stay short.
  for (int k = 0; k < 3 && q.deg >= 0; ++k) {
    if (q.c[k].empty()) continue;
    const std::string name = str_cat(prefix_, "c", i, "_", k);
    code.step_setup += "const real " + name + " = " + q.c[k] + ";\n";
    q.c[k] = name;
  }
}

// A step factor fn(x) of the double expression x, rounded to the real type: computed in double,
// or (Stepping::float_setup, float kernels) by the float library function of x rounded to float.
std::string Stepper::setup_fn(const std::string& fn, const std::string& x) const {
  if (s_.float_setup && d_.single()) return str_cat(fn, "f(real(", x, "))");
  return str_cat("real(", fn, "(", x, "))");
}

bool Stepper::emit(std::int32_t i, ModelCode& code, std::string& partial) {
  const Node& n = p_.nodes[static_cast<std::size_t>(i)];
  if (!n.time_dependent || n.a < 0 || (n.op != OpCode::exp && n.op != OpCode::cos && n.op != OpCode::sin)) return false;
  const Poly& a = poly_[static_cast<std::size_t>(n.a)];
  const bool quadratic = !a.c[2].empty();
  if (a.deg < 1 || (a.c[1].empty() && !quadratic) || (quadratic && n.op != OpCode::exp)) return false;
  const std::string id = prefix_ + std::to_string(i), va = prefix_ + "v" + std::to_string(n.a);
  const std::string h = "(" + s_.step + ")", c1 = a.c[1].empty() ? "0.0" : "(double)" + a.c[1], v = prefix_ + "v" + std::to_string(i);
  if (n.op == OpCode::exp && !quadratic) {
    code.step_setup += str_cat("const real ", id, "xr = ", setup_fn("exp", str_cat(c1, " * ", h)), ";\n");
    code.step_state += str_cat("real ", id, "xe = real(0);\n");
    code.per_bin += str_cat("if (", s_.first, ") ", id, "xe = ", d_.fn("exp"), "(", va, "); else ", id, "xe *= ", id, "xr;\n");
    code.per_bin += str_cat("const real ", v, " = ", id, "xe;\n");
  } else if (n.op == OpCode::exp) {
    const std::string c2 = "(double)" + a.c[2];
    code.step_setup += str_cat("const real ", id, "xa = real(", c1, " * ", h, " + ", c2, " * ", h, " * ", h, "), ", id, "xb = real(2.0 * ",
                               c2, " * ", h, "), ", id, "xc = ", setup_fn("exp", str_cat("2.0 * ", c2, " * ", h, " * ", h)), ";\n");
    code.step_state += str_cat("real ", id, "xe = real(0), ", id, "xq = real(0);\n");
    code.per_bin += str_cat("if (", s_.first, ") { ", id, "xe = ", d_.fn("exp"), "(", va, "); ", id, "xq = ", d_.fn("exp"), "(", id, "xa + ", id,
                            "xb * ", t_, "); } else { ", id, "xe *= ", id, "xq; ", id, "xq *= ", id, "xc; }\n");
    code.per_bin += str_cat("const real ", v, " = ", id, "xe;\n");
  } else {
    const std::string angle = str_cat(c1, " * ", h);
    code.step_setup += str_cat("const real ", id, "tr = ", setup_fn("cos", angle), ", ", id, "ti = ", setup_fn("sin", angle), ";\n");
    code.step_state += str_cat("real ", id, "tc = real(0), ", id, "ts = real(0);\n");
    code.per_bin += str_cat("if (", s_.first, ") { ", id, "tc = ", d_.fn("cos"), "(", va, "); ", id, "ts = ", d_.fn("sin"), "(", va, "); } else { const real ",
                            id, "tn = ", id, "tc * ", id, "tr - ", id, "ts * ", id, "ti; ", id, "ts = ", id, "ts * ", id, "tr + ", id, "tc * ", id,
                            "ti; ", id, "tc = ", id, "tn; }\n");
    const bool cosine = n.op == OpCode::cos;
    code.per_bin += str_cat("const real ", v, " = ", id, cosine ? "tc" : "ts", ";\n");
    partial = cosine ? "(-" + id + "ts)" : id + "tc";
  }
  ++code.stepped;
  return true;
}

}  // namespace tomo::musr
