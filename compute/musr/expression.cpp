// Program building (folding, sharing) and the CPU evaluators of compute/musr/expression.hpp.
#include "compute/musr/expression.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <sstream>

#include "compute/core/error.hpp"
#include "compute/musr/kt_tables.hpp"

namespace tomo::musr {
namespace {

double apply(OpCode op, double a, double b, double c) {
  switch (op) {
    case OpCode::add: return a + b;
    case OpCode::sub: return a - b;
    case OpCode::mul: return a * b;
    case OpCode::div: return a / b;
    case OpCode::pow: return std::pow(a, b);
    case OpCode::neg: return -a;
    case OpCode::cos: return std::cos(a);
    case OpCode::sin: return std::sin(a);
    case OpCode::tan: return std::tan(a);
    case OpCode::cosh: return std::cosh(a);
    case OpCode::sinh: return std::sinh(a);
    case OpCode::tanh: return std::tanh(a);
    case OpCode::acos: return std::acos(a);
    case OpCode::asin: return std::asin(a);
    case OpCode::atan: return std::atan(a);
    case OpCode::acosh: return std::acosh(a);
    case OpCode::asinh: return std::asinh(a);
    case OpCode::atanh: return std::atanh(a);
    case OpCode::exp: return std::exp(a);
    case OpCode::log10_abs: return std::log10(std::fabs(a));
    case OpCode::ln_abs: return std::log(std::fabs(a));
    case OpCode::sqrt_abs: return std::sqrt(std::fabs(a));
    case OpCode::bessel_j0: return ::j0(a);
    case OpCode::bessel_j1: return ::j1(a);
    case OpCode::select: return a >= 0.0 ? b : c;
    case OpCode::dawson: return dawson(a);
    default: throw Error("musr: apply() of a leaf op");
  }
}

// ∂v/∂a and ∂v/∂b of a unary/binary op with value v (select is handled by the caller).
void partials(OpCode op, double a, double b, double v, double& pa, double& pb) {
  pa = 0.0;
  pb = 0.0;
  switch (op) {
    case OpCode::add: pa = 1.0; pb = 1.0; break;
    case OpCode::sub: pa = 1.0; pb = -1.0; break;
    case OpCode::mul: pa = b; pb = a; break;
    case OpCode::div: pa = 1.0 / b; pb = -v / b; break;
    case OpCode::pow:
      // b·a^(b−1) stays finite at a = 0 for b ≥ 1; the b-partial only exists for a > 0.
      pa = (b == 0.0) ? 0.0 : b * std::pow(a, b - 1.0);
      pb = a > 0.0 ? v * std::log(a) : 0.0;
      break;
    case OpCode::neg: pa = -1.0; break;
    case OpCode::cos: pa = -std::sin(a); break;
    case OpCode::sin: pa = std::cos(a); break;
    case OpCode::tan: pa = 1.0 + v * v; break;
    case OpCode::cosh: pa = std::sinh(a); break;
    case OpCode::sinh: pa = std::cosh(a); break;
    case OpCode::tanh: pa = 1.0 - v * v; break;
    case OpCode::acos: pa = -1.0 / std::sqrt(1.0 - a * a); break;
    case OpCode::asin: pa = 1.0 / std::sqrt(1.0 - a * a); break;
    case OpCode::atan: pa = 1.0 / (1.0 + a * a); break;
    case OpCode::acosh: pa = 1.0 / std::sqrt(a * a - 1.0); break;
    case OpCode::asinh: pa = 1.0 / std::sqrt(a * a + 1.0); break;
    case OpCode::atanh: pa = 1.0 / (1.0 - a * a); break;
    case OpCode::exp: pa = v; break;
    case OpCode::log10_abs: pa = 1.0 / (a * std::log(10.0)); break;
    case OpCode::ln_abs: pa = 1.0 / a; break;
    case OpCode::sqrt_abs: pa = v == 0.0 ? 0.0 : (a < 0.0 ? -0.5 : 0.5) / v; break;
    case OpCode::bessel_j0: pa = -::j1(a); break;
    case OpCode::bessel_j1: pa = ::j0(a) - (a == 0.0 ? 0.5 : ::j1(a) / a); break;
    case OpCode::dawson: pa = 1.0 - 2.0 * a * v; break;
    default: break;
  }
}

}  // namespace

int arity(OpCode op) {
  switch (op) {
    case OpCode::constant: case OpCode::param: case OpCode::time: return 0;
    case OpCode::add: case OpCode::sub: case OpCode::mul: case OpCode::div: case OpCode::pow: return 2;
    case OpCode::select: return 3;
    case OpCode::table: return 4;
    default: return 1;
  }
}

std::string_view op_name(OpCode op) {
  static constexpr std::string_view names[] = {
      "constant", "param", "time", "add", "sub", "mul", "div", "pow", "neg", "cos", "sin", "tan",
      "cosh", "sinh", "tanh", "acos", "asin", "atan", "acosh", "asinh", "atanh", "exp",
      "log10_abs", "ln_abs", "sqrt_abs", "bessel_j0", "bessel_j1", "select", "table", "dawson"};
  return names[static_cast<int>(op)];
}

std::vector<int> Program::params_used() const {
  std::vector<int> out;
  for (const auto& n : nodes)
    if (n.op == OpCode::param) out.push_back(n.index);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string Program::dump() const {
  std::ostringstream os;
  os.precision(17);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    os << 'v' << i << " = " << op_name(n.op);
    if (n.op == OpCode::constant) os << ' ' << n.value;
    if (n.op == OpCode::param || n.op == OpCode::table) os << ' ' << n.index;
    for (int k = 0, ar = arity(n.op); k < ar; ++k) os << " v" << (k == 0 ? n.a : k == 1 ? n.b : k == 2 ? n.c : n.d);
    if (n.time_dependent) os << "  [t]";
    os << (static_cast<std::int32_t>(i) == output ? "  <- output\n" : "\n");
  }
  return os.str();
}

std::int32_t ProgramBuilder::push(Node n) {
  auto key = std::make_tuple(static_cast<int>(n.op), n.a, n.b, n.c, n.d, n.index, std::bit_cast<std::uint64_t>(n.value));
  if (auto it = seen_.find(key); it != seen_.end()) return it->second;
  auto id = static_cast<std::int32_t>(nodes_.size());
  nodes_.push_back(n);
  seen_.emplace(key, id);
  return id;
}

std::int32_t ProgramBuilder::constant(double v) {
  Node n;
  n.op = OpCode::constant;
  n.value = v;
  return push(n);
}

std::int32_t ProgramBuilder::param(int index) {
  if (index < 0 || index >= num_params_)
    throw InputError("parameter " + std::to_string(index + 1) + " does not exist (FITPARAMETER has " +
                     std::to_string(num_params_) + ")");
  Node n;
  n.op = OpCode::param;
  n.index = index;
  return push(n);
}

void ProgramBuilder::set_fixed(int index, double value) {
  if (index < 0 || index >= num_params_) throw Error("musr: fixed parameter " + std::to_string(index + 1) + " does not exist");
  fixed_[index] = value;
}

std::optional<double> ProgramBuilder::known_value(std::int32_t node) const {
  if (node < 0 || node >= static_cast<std::int32_t>(nodes_.size())) return std::nullopt;
  const Program p = finish(node);
  std::vector<double> params(static_cast<std::size_t>(num_params_), 0.0);
  for (const Node& n : p.nodes) {
    if (n.time_dependent || n.op == OpCode::table) return std::nullopt;
    if (n.op != OpCode::param) continue;
    const auto it = fixed_.find(n.index);
    if (it == fixed_.end()) return std::nullopt;
    params[static_cast<std::size_t>(n.index)] = it->second;
  }
  return evaluate(p, params, 0.0);
}

std::int32_t ProgramBuilder::time() {
  Node n;
  n.op = OpCode::time;
  n.time_dependent = true;
  return push(n);
}

std::int32_t ProgramBuilder::unary(OpCode op, std::int32_t a) {
  const Node& na = nodes_.at(a);
  if (na.op == OpCode::constant) return constant(apply(op, na.value, 0.0, 0.0));
  Node n;
  n.op = op;
  n.a = a;
  n.time_dependent = na.time_dependent;
  return push(n);
}

std::int32_t ProgramBuilder::binary(OpCode op, std::int32_t a, std::int32_t b) {
  const Node& na = nodes_.at(a);
  const Node& nb = nodes_.at(b);
  if (na.op == OpCode::constant && nb.op == OpCode::constant) return constant(apply(op, na.value, nb.value, 0.0));
  // x·1, 1·x, x+0, 0+x, x−0, x/1: keep generated code lean (THEORY products start from 1).
  auto is = [&](const Node& n, double v) { return n.op == OpCode::constant && n.value == v; };
  if (op == OpCode::mul && is(na, 1.0)) return b;
  if ((op == OpCode::mul || op == OpCode::div) && is(nb, 1.0)) return a;
  if (op == OpCode::add && is(na, 0.0)) return b;
  if ((op == OpCode::add || op == OpCode::sub) && is(nb, 0.0)) return a;
  // Commutative ops: order operands so that a+b and b+a share one node.
  if ((op == OpCode::add || op == OpCode::mul) && a > b) std::swap(a, b);
  Node n;
  n.op = op;
  n.a = a;
  n.b = b;
  n.time_dependent = nodes_[a].time_dependent || nodes_[b].time_dependent;
  return push(n);
}

std::int32_t ProgramBuilder::select(std::int32_t cond, std::int32_t if_nonneg, std::int32_t if_neg) {
  const Node& nc = nodes_.at(cond);
  if (nc.op == OpCode::constant) return nc.value >= 0.0 ? if_nonneg : if_neg;
  Node n;
  n.op = OpCode::select;
  n.a = cond;
  n.b = if_nonneg;
  n.c = if_neg;
  n.time_dependent = nc.time_dependent || nodes_.at(if_nonneg).time_dependent || nodes_.at(if_neg).time_dependent;
  return push(n);
}

std::int32_t ProgramBuilder::table(int kind, std::int32_t x, std::int32_t a0, std::int32_t a1, std::int32_t a2) {
  if (!nodes_.at(x).time_dependent) throw Error("musr: a table is read at a time-independent point");
  for (auto o : {a0, a1, a2})
    if (nodes_.at(o).time_dependent) throw InputError("musr: a tabulated theory function's parameters may not depend on t");
  Node n;
  n.op = OpCode::table;
  n.index = kind;
  n.a = x;
  n.b = a0;
  n.c = a1;
  n.d = a2;
  n.time_dependent = nodes_.at(x).time_dependent;
  return push(n);
}

Program ProgramBuilder::finish(std::int32_t output) const {
  if (output < 0 || output >= static_cast<std::int32_t>(nodes_.size())) throw Error("musr: program has no output");
  // Keep only the nodes that reach the output, renumbered in their (topological) order.
  std::vector<char> live(nodes_.size(), 0);
  live[output] = 1;
  for (auto i = output; i >= 0; --i) {
    if (!live[i]) continue;
    const Node& n = nodes_[i];
    for (auto o : {n.a, n.b, n.c, n.d})
      if (o >= 0) live[o] = 1;
  }
  std::vector<std::int32_t> renum(nodes_.size(), -1);
  Program p;
  p.num_params = num_params_;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (!live[i]) continue;
    Node n = nodes_[i];
    for (auto* o : {&n.a, &n.b, &n.c, &n.d})
      if (*o >= 0) *o = renum[*o];
    renum[i] = static_cast<std::int32_t>(p.nodes.size());
    p.nodes.push_back(n);
  }
  p.output = renum[output];
  return p;
}

double evaluate(const Program& p, std::span<const double> params, double t) {
  ProgramEvaluator ev(p);
  ev.prepare(params, false);
  return ev.value(t);
}

ProgramEvaluator::ProgramEvaluator(const Program& p) : p_(&p), used_(p.params_used()) {
  slot_of_param_.assign(static_cast<std::size_t>(p.num_params), -1);
  for (std::size_t k = 0; k < used_.size(); ++k) slot_of_param_[used_[k]] = static_cast<int>(k);
  v_.assign(p.nodes.size(), 0.0);
  tables_.assign(p.nodes.size(), nullptr);
  for (std::size_t i = 0; i < p.nodes.size(); ++i)
    if (p.nodes[i].time_dependent) tdep_.push_back(static_cast<std::int32_t>(i));
}

namespace {
// Value (and, with d != nullptr, the derivative slots) of node i from its operands.
inline void eval_node(const Node& n, std::size_t i, double* v, double* d, std::size_t k, std::span<const double> params,
                      const std::vector<int>& slot, double t, const std::shared_ptr<const KtTable>* tables) {
  switch (n.op) {
    case OpCode::constant: v[i] = n.value; break;
    case OpCode::param: v[i] = params[n.index]; break;
    case OpCode::time: v[i] = t; break;
    case OpCode::table: {
      const KtTable& tab = *tables[i];
      v[i] = kt_lookup(tab.v, tab.dt, v[n.a]);
      if (!d) return;
      // ∂/∂x from the interval's slope, ∂/∂argument from the table's differences at x.
      const double px = kt_slope(tab.v, tab.dt, v[n.a]);
      double pj[3];
      for (int j = 0; j < 3; ++j) pj[j] = tab.dv[j].size() == tab.v.size() ? kt_lookup(tab.dv[j], tab.dt, v[n.a]) : 0.0;
      double* di = d + i * k;
      const double* da = d + static_cast<std::size_t>(n.a) * k;
      const double* db[3] = {d + static_cast<std::size_t>(n.b) * k, d + static_cast<std::size_t>(n.c) * k,
                             d + static_cast<std::size_t>(n.d) * k};
      for (std::size_t s = 0; s < k; ++s) di[s] = px * da[s] + pj[0] * db[0][s] + pj[1] * db[1][s] + pj[2] * db[2][s];
      return;
    }
    default: v[i] = apply(n.op, v[n.a], n.b >= 0 ? v[n.b] : 0.0, n.c >= 0 ? v[n.c] : 0.0);
  }
  if (!d) return;
  double* di = d + i * k;
  if (n.op == OpCode::constant || n.op == OpCode::time) {
    std::fill(di, di + k, 0.0);
  } else if (n.op == OpCode::param) {
    std::fill(di, di + k, 0.0);
    di[slot[n.index]] = 1.0;
  } else if (n.op == OpCode::select) {
    const double* src = d + static_cast<std::size_t>(v[n.a] >= 0.0 ? n.b : n.c) * k;
    std::copy(src, src + k, di);
  } else {
    double pa = 0.0, pb = 0.0;
    partials(n.op, v[n.a], n.b >= 0 ? v[n.b] : 0.0, v[i], pa, pb);
    const double* da = d + static_cast<std::size_t>(n.a) * k;
    if (n.b >= 0) {
      const double* db = d + static_cast<std::size_t>(n.b) * k;
      for (std::size_t j = 0; j < k; ++j) di[j] = pa * da[j] + pb * db[j];
    } else {
      for (std::size_t j = 0; j < k; ++j) di[j] = pa * da[j];
    }
  }
}
}  // namespace

void ProgramEvaluator::prepare(std::span<const double> params, bool with_gradient) {
  if (static_cast<int>(params.size()) < p_->num_params)
    throw Error("musr: program needs " + std::to_string(p_->num_params) + " parameters, got " +
                std::to_string(params.size()));
  const std::size_t k = used_.size();
  if (with_gradient) d_.assign(p_->nodes.size() * k, 0.0);
  for (std::size_t i = 0; i < p_->nodes.size(); ++i) {
    const Node& n = p_->nodes[i];
    if (n.time_dependent) continue;
    eval_node(n, i, v_.data(), with_gradient ? d_.data() : nullptr, k, params, slot_of_param_, 0.0, tables_.data());
  }
  // The time-dependent nodes the output needs at these parameters: of a select whose
  // condition does not depend on t only the taken branch (musrfit's branches by parameter
  // value, e.g. dynGssKTLF's Volterra table or Keren's formula).
  const auto nn = static_cast<std::int32_t>(p_->nodes.size());
  std::vector<char> live(p_->nodes.size(), 0);
  live[static_cast<std::size_t>(p_->output)] = 1;
  for (std::int32_t i = p_->output; i >= 0; --i) {
    if (!live[static_cast<std::size_t>(i)]) continue;
    const Node& n = p_->nodes[static_cast<std::size_t>(i)];
    if (n.op == OpCode::select && !p_->nodes[static_cast<std::size_t>(n.a)].time_dependent) {
      live[static_cast<std::size_t>(n.a)] = 1;
      live[static_cast<std::size_t>(v_[n.a] >= 0.0 ? n.b : n.c)] = 1;
      continue;
    }
    for (auto o : {n.a, n.b, n.c, n.d})
      if (o >= 0) live[static_cast<std::size_t>(o)] = 1;
  }
  tdep_.clear();
  for (std::int32_t i = 0; i < nn; ++i)
    if (p_->nodes[static_cast<std::size_t>(i)].time_dependent && live[static_cast<std::size_t>(i)]) tdep_.push_back(i);
  // Every table (a GPU kernel reads the untaken branches too), from the cache.
  for (std::size_t i = 0; i < p_->nodes.size(); ++i) {
    const Node& n = p_->nodes[i];
    if (n.op != OpCode::table) continue;
    // Differences only for the arguments that depend on a parameter.
    unsigned diff = 0;
    const std::int32_t args[3] = {n.b, n.c, n.d};
    for (int j = 0; j < 3; ++j)
      if (with_gradient && p_->nodes[static_cast<std::size_t>(args[j])].op != OpCode::constant) diff |= 1u << j;
    tables_[i] = kt_table(static_cast<TableKind>(n.index), v_[n.b], v_[n.c], v_[n.d], diff);
  }
  params_ = params;
}

std::vector<const KtTable*> ProgramEvaluator::tables() const {
  std::vector<const KtTable*> out;
  for (std::size_t i = 0; i < p_->nodes.size(); ++i)
    if (p_->nodes[i].op == OpCode::table) out.push_back(tables_[i].get());
  return out;
}

double ProgramEvaluator::value(double t) {
  for (auto i : tdep_) eval_node(p_->nodes[i], i, v_.data(), nullptr, 0, params_, slot_of_param_, t, tables_.data());
  return v_[p_->output];
}

double ProgramEvaluator::value_and_gradient(double t, std::span<double> dtheta) {
  const std::size_t k = used_.size();
  for (auto i : tdep_) eval_node(p_->nodes[i], i, v_.data(), d_.data(), k, params_, slot_of_param_, t, tables_.data());
  const double* dout = d_.data() + static_cast<std::size_t>(p_->output) * k;
  std::copy(dout, dout + k, dtheta.begin());
  return v_[p_->output];
}

}  // namespace tomo::musr
