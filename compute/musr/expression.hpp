// The theory of a μSR run as one flat expression program (SSA nodes in evaluation order),
// built from THEORY lines, FUNCTIONS and maps; evaluated here in double (value and gradient).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace tomo::musr {

// Physical constants as musrfit uses them.
inline constexpr double kMuonLifetime = 2.1969811;       // τ_μ in µs
inline constexpr double kGammaMuOver2Pi = 0.01355388094;  // γ_μ/2π in MHz/G (FUNCTIONS: GAMMA_MU)
inline constexpr double kPi = 3.14159265358979323846;

// One operation of a program. Operands a, b, c are indices of earlier nodes.
enum class OpCode : std::uint8_t {
  // leaves
  constant,  // value
  param,     // params[index] (0-based; the msr's parameter index+1)
  time,      // t in µs relative to t0
  // binary
  add, sub, mul, div,
  pow,       // std::pow(a, b)
  // unary
  neg, cos, sin, tan, cosh, sinh, tanh, acos, asin, atan, acosh, asinh, atanh, exp,
  log10_abs,  // FUNCTIONS `log`: log10(|a|) as musrfit
  ln_abs,     // FUNCTIONS `ln`: ln(|a|)
  sqrt_abs,   // FUNCTIONS `sqrt`: sqrt(|a|)
  bessel_j0,  // J0(a) (bessel, internBsl); its derivative is −J1(a)
  bessel_j1,  // J1(a) (only so that a generated gradient has a name for J0')
  // ternary
  select,     // a >= 0 ? b : c  (guards such as generExpo's λt < 0)
  // a tabulated function of one time-like operand a, defined by the time-independent operands
  // b, c, d (Kubo–Toyabe LF integrals and Volterra solutions: compute/musr/kt_tables.hpp);
  // index is its TableKind. Evaluated by interpolation in a table built once per parameter set.
  table,
  // Dawson's integral F(a) = e^(−a²)∫₀^a e^(s²) ds (skewedGss); its derivative is 1 − 2aF(a)
  dawson,
};

int arity(OpCode op);
std::string_view op_name(OpCode op);  // "add", "cos", ... (for dumps and generated comments)

struct Node {
  OpCode op = OpCode::constant;
  std::int32_t a = -1, b = -1, c = -1;  // operands (earlier nodes), -1 where unused
  std::int32_t d = -1;                  // the fourth operand of `table`
  std::int32_t index = -1;              // param: parameter index
  double value = 0.0;                   // constant: its value
  bool time_dependent = false;          // true when t reaches this node (else hoistable per call)
};

// A compiled model: nodes in evaluation order (operands before users), one output node.
// Maps and funX are resolved when it is built, so a program only refers to parameters and t.
struct Program {
  std::vector<Node> nodes;
  std::int32_t output = -1;
  int num_params = 0;  // size of the parameter vector it indexes
  // Parameter indices that reach the output (sorted): the only non-zero gradient entries.
  std::vector<int> params_used() const;
  std::string dump() const;  // one line per node, for errors and tests
};

// Builds programs with constant folding and common-subexpression sharing, so that e.g.
// `t − tshift` used by five THEORY lines is computed once.
class ProgramBuilder {
 public:
  explicit ProgramBuilder(int num_params) : num_params_(num_params) {}
  std::int32_t constant(double v);
  std::int32_t param(int index);  // throws InputError when index is outside [0, num_params)
  std::int32_t time();
  std::int32_t unary(OpCode op, std::int32_t a);
  std::int32_t binary(OpCode op, std::int32_t a, std::int32_t b);
  std::int32_t select(std::int32_t cond, std::int32_t if_nonneg, std::int32_t if_neg);
  // kind's table at x; a0, a1, a2 must not depend on t (InputError otherwise).
  std::int32_t table(int kind, std::int32_t x, std::int32_t a0, std::int32_t a1, std::int32_t a2);
  std::int32_t add(std::int32_t a, std::int32_t b) { return binary(OpCode::add, a, b); }
  std::int32_t sub(std::int32_t a, std::int32_t b) { return binary(OpCode::sub, a, b); }
  std::int32_t mul(std::int32_t a, std::int32_t b) { return binary(OpCode::mul, a, b); }
  std::int32_t div(std::int32_t a, std::int32_t b) { return binary(OpCode::div, a, b); }
  // The finished program with `output` as its result; nodes that do not reach it are dropped.
  Program finish(std::int32_t output) const;
  const std::vector<Node>& nodes() const { return nodes_; }
  // Fixed parameters (step 0 in FITPARAMETER and released by no COMMANDS line) with their values:
  // param nodes stay param nodes, but a native user function may read the value at build time and
  // fold it into a table's settings, so that a table takes more than its three arguments.
  void set_fixed(int index, double value);
  // The value of a time-independent node built only from constants and fixed parameters (any
  // arithmetic, no table); nullopt otherwise.
  std::optional<double> known_value(std::int32_t node) const;

 private:
  std::int32_t push(Node n);
  int num_params_;
  std::vector<Node> nodes_;
  std::map<int, double> fixed_;  // parameter index → value
  std::map<std::tuple<int, int, int, int, int, int, std::uint64_t>, std::int32_t> seen_;
};

// ---- predefined THEORY functions (musrfit names and abbreviations) ----
enum class TheoryFn {
  constant, asymmetry, simpl_expo, gener_expo, simple_gss, stat_gss_kt, stat_exp_kt, combi_lgkt,
  str_kt, abragam, tfield_cos, bessel, intern_fld, intern_bsl, polynom,
  stat_gss_kt_lf, dyn_gss_kt_lf, stat_exp_kt_lf, dyn_exp_kt_lf, spin_glass, rd_aniso_hf, intern_fld_gk,
  intern_fld_ll, skewed_gss, static_nk_zf, static_nk_tf, dynamic_nk_zf, dynamic_nk_tf, mu_minus_exp_tf
};
struct TheoryFnInfo {
  TheoryFn fn;
  std::string_view name;    // e.g. "simplExpo"
  std::string_view abbrev;  // e.g. "se"
  int min_args;             // without tshift
  int max_args;             // with the optional tshift (polynom: -1 = any number ≥ 2)
};
// Looks up a name or abbreviation, case-insensitively; nullptr when unknown.
const TheoryFnInfo* find_theory_function(std::string_view name);
const std::vector<TheoryFnInfo>& theory_functions();
// Emits the sub-tree of fn(args) at time node t (tshift, when present, is the last argument
// except for polynom, where it is the first). args are node indices.
std::int32_t build_theory_function(ProgramBuilder& b, TheoryFn fn, std::span<const std::int32_t> args,
                                   std::int32_t t);

// ---- FUNCTIONS expressions: parsed into a small tree, lowered into a program ----
struct Expr {
  enum class Kind { number, param, map, fun, time, unary, binary, call } kind = Kind::number;
  double number = 0.0;        // number
  int ref = 0;                // param/map/fun: N of parN, mapN, funN (1-based as written)
  OpCode op = OpCode::add;    // unary/binary/call: the operation
  std::vector<std::unique_ptr<Expr>> args;
};

// Parses the right-hand side of a FUNCTIONS line: numbers, parN, mapN, funN, PI, GAMMA_MU,
// + − * /, unary −, parentheses, the musrfit functions (cos … atanh, exp, log, ln, sqrt,
// pow(a,b)). Throws InputError naming the offending token and its column.
// Bounds that keep parsing, lowering and destruction within the stack: realistic FUNCTIONS
// lines are a few hundred characters and nest a handful of levels.
inline constexpr std::size_t kMaxExpressionChars = 4096;
inline constexpr int kMaxExpressionDepth = 200;
std::unique_ptr<Expr> parse_expression(std::string_view text);

// How a lowering resolves references: parN → param node, mapN → the run's map entry,
// funN → the already-lowered function. Each returns a node index or throws InputError.
struct ExprResolver {
  virtual ~ExprResolver() = default;
  virtual std::int32_t param(int n) = 0;
  virtual std::int32_t map(int n) = 0;
  virtual std::int32_t fun(int n) = 0;
};
std::int32_t lower_expression(const Expr& e, ProgramBuilder& b, ExprResolver& r);

// Dawson's integral F(x) = e^(−x²)∫₀^x e^(s²) ds in double (relative error < 2e-14).
double dawson(double x);

// ---- CPU evaluation in double ----
struct KtTable;  // compute/musr/kt_tables.hpp

// Value of the program at time t.
double evaluate(const Program& p, std::span<const double> params, double t);

// Evaluates many times at the same parameters: the time-independent nodes are computed
// once in prepare(), and the gradient (forward mode, one dual slot per used parameter) is
// carried only where needed. Not thread-safe: one per thread.
class ProgramEvaluator {
 public:
  explicit ProgramEvaluator(const Program& p);
  // Sets the parameters; with_gradient also prepares the derivative slots.
  void prepare(std::span<const double> params, bool with_gradient);
  double value(double t);
  // Value at t; dtheta[k] = ∂θ/∂params[used()[k]].
  double value_and_gradient(double t, std::span<double> dtheta);
  const std::vector<int>& used() const { return used_; }
  // The tables of the program's table nodes in node order (after prepare()).
  std::vector<const KtTable*> tables() const;

 private:
  const Program* p_;
  std::vector<int> used_;
  std::vector<int> slot_of_param_;  // param index → dual slot or -1
  std::vector<double> v_;           // node values
  std::vector<double> d_;           // node derivatives, nodes × used
  std::vector<std::int32_t> tdep_;  // time-dependent nodes in order
  std::vector<std::shared_ptr<const KtTable>> tables_;  // per node: its table (table nodes)
  std::span<const double> params_;  // as given to prepare() (must outlive the value calls)
};

}  // namespace tomo::musr
