// Stepped exp/cos/sin for the CUDA code generator (Stepping in codegen_common.hpp): the
// polynomial forms in t of a program's nodes and the statements that step a function from bin to bin.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compute/musr/codegen_common.hpp"
#include "compute/musr/expression.hpp"

namespace tomo::musr {

// Polynomial forms in t of a program's nodes (degree ≤ 2, coefficients as time-independent
// text) and the stepped statements of Stepping (codegen_common.hpp) built from them.
class Stepper {
 public:
  Stepper(const Program& p, const Dialect& d, const std::string& prefix, const Stepping& s, const std::string& time_var)
      : p_(p), d_(d), prefix_(prefix), s_(s), t_(time_var), poly_(p.nodes.size()) {}

  // Records node i's polynomial form (value text v, hoisted reciprocal rcp or empty).
  void track(std::int32_t i, const std::string& v, const std::string& rcp, ModelCode& code);

  // The stepped statements of node i when it is exp of degree 1–2 or cos/sin of degree 1 in t
  // (appended to code.per_bin, with `partial` set to ∂v/∂a for cos/sin); false otherwise.
  bool emit(std::int32_t i, ModelCode& code, std::string& partial);

 private:
  std::string setup_fn(const std::string& fn, const std::string& x) const;
  struct Poly {
    int deg = -1;       // -1: not a polynomial of degree ≤ 2 in t
    std::string c[3];  // coefficients of 1, t, t² (empty: zero)
  };
  static std::string sum(const std::string& x, const std::string& y, char op) {
    if (y.empty()) return x;
    if (x.empty()) return op == '-' ? "(-" + y + ")" : y;
    return "(" + x + " " + op + " " + y + ")";
  }
  static std::string prod(const std::string& x, const std::string& y) {
    return x.empty() || y.empty() ? std::string() : "(" + x + " * " + y + ")";
  }
  const Program& p_;
  const Dialect& d_;
  std::string prefix_;
  Stepping s_;
  std::string t_;
  std::vector<Poly> poly_;
};

}  // namespace tomo::musr
