// The `.fcn` language of compute/musr/user_fcn.hpp: a recursive-descent parser (no eval of
// text) to UserExpr trees with every name resolved, errors naming file, line and column.
//
//   file      := { 'function' NAME '(' [NAME {',' NAME}] ')' '{' { stmt } '}' }
//   stmt      := 'let' NAME '=' expr ';' | 'return' expr ';'   (one return, last)
//   expr      := sum [ ('<' | '<=' | '>' | '>=') sum '?' expr ':' expr ]
//   sum       := product { ('+' | '-') product }
//   product   := unary { ('*' | '/') unary }
//   unary     := ('-' | '+') unary | primary
//   primary   := NUMBER | NAME | NAME '(' [expr {',' expr}] ')' | '(' expr ')'
// A call names a math function (kCalls) or a predefined THEORY function (its full name).
// Comments run from '#' or '//' to the end of the line.
#include <cctype>
#include <charconv>
#include <cmath>

#include "compute/core/error.hpp"
#include "compute/io/input_file.hpp"
#include "compute/musr/quoted_text.hpp"
#include "compute/musr/user_fcn.hpp"

namespace tomo::musr {
namespace {

struct Builtin {
  std::string_view name;
  OpCode op;
  int nargs;
};
// C's names where the operation is C's; log/log10/sqrt of |x| as musrfit's FUNCTIONS.
constexpr Builtin kCalls[] = {
    {"cos", OpCode::cos, 1},     {"sin", OpCode::sin, 1},     {"tan", OpCode::tan, 1},
    {"cosh", OpCode::cosh, 1},   {"sinh", OpCode::sinh, 1},   {"tanh", OpCode::tanh, 1},
    {"acos", OpCode::acos, 1},   {"asin", OpCode::asin, 1},   {"atan", OpCode::atan, 1},
    {"acosh", OpCode::acosh, 1}, {"asinh", OpCode::asinh, 1}, {"atanh", OpCode::atanh, 1},
    {"exp", OpCode::exp, 1},     {"log", OpCode::ln_abs, 1},  {"log10", OpCode::log10_abs, 1},
    {"sqrt", OpCode::sqrt_abs, 1}, {"j0", OpCode::bessel_j0, 1}, {"j1", OpCode::bessel_j1, 1},
    {"pow", OpCode::pow, 2},
    // abs, min, max: their own kinds (lowered with select, the operands once).
    {"abs", OpCode::neg, 1},     {"min", OpCode::neg, 2},     {"max", OpCode::neg, 2},
};
constexpr std::string_view kKeywords[] = {"function", "let", "return", "t", "pi", "gamma_mu"};

using Ptr = std::unique_ptr<UserExpr>;

Ptr make(UserExpr::Kind k) {
  auto e = std::make_unique<UserExpr>();
  e->kind = k;
  return e;
}
Ptr number(double v) {
  auto e = make(UserExpr::Kind::number);
  e->number = v;
  return e;
}
Ptr op(OpCode o, Ptr a, Ptr b = nullptr) {
  auto e = make(b ? UserExpr::Kind::binary : UserExpr::Kind::unary);
  e->op = o;
  e->args.push_back(std::move(a));
  if (b) e->args.push_back(std::move(b));
  return e;
}
Ptr select(Ptr cond, Ptr if_nonneg, Ptr if_neg) {
  auto e = make(UserExpr::Kind::select);
  e->args.push_back(std::move(cond));
  e->args.push_back(std::move(if_nonneg));
  e->args.push_back(std::move(if_neg));
  return e;
}
class Parser {
 public:
  Parser(std::string_view s, const std::string& where) : s_(s), where_(where) {}

  std::vector<std::shared_ptr<const UserFunction>> file() {
    std::vector<std::shared_ptr<const UserFunction>> out;
    for (skip(); pos_ < s_.size(); skip()) {
      if (out.size() >= kUserFcnMaxFunctions) fail("more than " + std::to_string(kUserFcnMaxFunctions) + " functions");
      auto f = function();
      for (const auto& g : out)
        if (g->name == f->name) fail("function '" + f->name + "' defined twice");
      out.push_back(std::move(f));
    }
    if (out.empty()) fail("no 'function' in the file");
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    int line = 1, col = 1;
    for (std::size_t i = 0; i < pos_ && i < s_.size(); ++i) {
      if (s_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw InputError(where_ + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + what);
  }
  void skip() {
    for (;;) {
      while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '#' || s_.substr(pos_, 2) == "//")) {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
        continue;
      }
      return;
    }
  }
  bool eat(std::string_view tok) {
    skip();
    if (s_.substr(pos_, tok.size()) != tok) return false;
    pos_ += tok.size();
    return true;
  }
  void expect(std::string_view tok) {
    if (!eat(tok)) fail("expected '" + std::string(tok) + "'" + found());
  }
  std::string found() {
    skip();
    if (pos_ >= s_.size()) return ", found the end of the file";
    return ", found '" + quoted_excerpt(s_.substr(pos_, 1)) + "'";
  }
  bool at_name() {
    skip();
    return pos_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_');
  }
  std::string name(const char* what) {
    if (!at_name()) fail(std::string("expected ") + what + found());
    std::size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    if (pos_ - start > 64) {
      pos_ = start;
      fail(std::string(what) + " longer than 64 characters");
    }
    return std::string(s_.substr(start, pos_ - start));
  }
  // A new parameter or local: not a keyword, a call name or a name already in use.
  void declare(const std::string& n, std::size_t at) {
    auto taken = [&] {
      for (auto k : kKeywords)
        if (n == k) return true;
      for (const auto& c : kCalls)
        if (n == c.name) return true;
      for (const auto& p : params_)
        if (n == p) return true;
      for (const auto& l : local_names_)
        if (n == l) return true;
      return false;
    };
    if (taken()) {
      pos_ = at;
      fail("name '" + n + "' is a keyword, a function or already declared");
    }
  }

  std::shared_ptr<const UserFunction> function() {
    const std::size_t start = pos_;
    if (name("'function'") != "function") {
      pos_ = start;
      fail("expected 'function'");
    }
    auto f = std::make_shared<UserFunction>();
    skip();
    int line = 1;
    for (std::size_t i = 0; i < pos_; ++i) line += s_[i] == '\n';
    f->name = name("a function name");
    f->where = where_ + ":" + std::to_string(line);
    params_.clear();
    local_names_.clear();
    expect("(");
    if (!eat(")")) {
      do {
        skip();
        const std::size_t at = pos_;
        auto p = name("a parameter name");
        declare(p, at);
        if (params_.size() >= kUserFcnMaxParams) fail("more than " + std::to_string(kUserFcnMaxParams) + " parameters");
        params_.push_back(p);
      } while (eat(","));
      expect(")");
    }
    f->params = params_;
    expect("{");
    for (;;) {
      if (f->locals.size() >= kUserFcnMaxStatements) fail("more than " + std::to_string(kUserFcnMaxStatements) + " statements");
      skip();
      const std::size_t at = pos_;
      const std::string kw = at_name() ? name("a statement") : std::string();
      if (kw == "let") {
        skip();
        const std::size_t nat = pos_;
        auto n = name("a name after 'let'");
        declare(n, nat);
        expect("=");
        f->locals.push_back(expr());
        local_names_.push_back(n);  // after its value: `let x = x + 1` is an error
        expect(";");
      } else if (kw == "return") {
        f->result = expr();
        expect(";");
        expect("}");
        return f;
      } else {
        pos_ = at;
        fail("expected 'let' or 'return'" + found());
      }
    }
  }

  void enter() {
    if (++depth_ > kUserFcnMaxDepth) fail("nested more than " + std::to_string(kUserFcnMaxDepth) + " deep");
  }

  Ptr expr() {
    enter();
    auto a = sum();
    struct Cmp {
      std::string_view tok;
      bool swap, flip;  // cond = swap ? b − a : a − b; flip: branches exchanged
    };
    // a >= b: a−b ≥ 0; a <= b: b−a ≥ 0; a > b: not (b−a ≥ 0); a < b: not (a−b ≥ 0).
    static constexpr Cmp kCmp[] = {{">=", false, false}, {"<=", true, false}, {">", true, true}, {"<", false, true}};
    for (const auto& c : kCmp) {
      if (!eat(c.tok)) continue;
      auto b = sum();
      expect("?");
      auto then = expr();
      expect(":");
      auto other = expr();
      auto cond = c.swap ? op(OpCode::sub, std::move(b), std::move(a)) : op(OpCode::sub, std::move(a), std::move(b));
      a = c.flip ? select(std::move(cond), std::move(other), std::move(then))
                 : select(std::move(cond), std::move(then), std::move(other));
      break;
    }
    --depth_;
    return a;
  }
  // Each operator of a chain deepens the (left-deep) tree by one: it counts as a level.
  Ptr sum() {
    auto e = product();
    int chained = 0;
    for (;; ++chained) {
      if (eat("+")) { enter(); e = op(OpCode::add, std::move(e), product()); }
      else if (eat("-")) { enter(); e = op(OpCode::sub, std::move(e), product()); }
      else break;
    }
    depth_ -= chained;
    return e;
  }
  Ptr product() {
    auto e = unary();
    int chained = 0;
    for (;; ++chained) {
      if (eat("*")) { enter(); e = op(OpCode::mul, std::move(e), unary()); }
      else if (eat("/")) { enter(); e = op(OpCode::div, std::move(e), unary()); }
      else break;
    }
    depth_ -= chained;
    return e;
  }
  Ptr unary() {
    enter();
    Ptr e;
    if (eat("-")) e = op(OpCode::neg, unary());
    else if (eat("+")) e = unary();
    else e = primary();
    --depth_;
    return e;
  }
  Ptr primary() {
    skip();
    if (pos_ >= s_.size()) fail("expected an operand, found the end of the file");
    const char c = s_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      double v = 0.0;
      auto [p, ec] = std::from_chars(s_.data() + pos_, s_.data() + s_.size(), v);
      if (ec != std::errc() || !std::isfinite(v)) fail("bad number");
      pos_ = static_cast<std::size_t>(p - s_.data());
      return number(v);
    }
    if (eat("(")) {
      auto e = expr();
      expect(")");
      return e;
    }
    const std::size_t at = pos_;
    const std::string n = name("an operand");
    if (n == "t") return make(UserExpr::Kind::time);
    if (n == "pi") return number(kPi);
    if (n == "gamma_mu") return number(kGammaMuOver2Pi);
    for (std::size_t i = 0; i < params_.size(); ++i)
      if (params_[i] == n) {
        auto e = make(UserExpr::Kind::arg);
        e->ref = static_cast<int>(i);
        return e;
      }
    for (std::size_t i = 0; i < local_names_.size(); ++i)
      if (local_names_[i] == n) {
        auto e = make(UserExpr::Kind::local);
        e->ref = static_cast<int>(i);
        return e;
      }
    for (const auto& b : kCalls) {
      if (n != b.name) continue;
      expect("(");
      std::vector<Ptr> a;
      a.push_back(expr());
      while (eat(",")) {
        if (static_cast<int>(a.size()) >= b.nargs) {
          pos_ = at;
          fail(std::string(b.name) + "() takes " + std::to_string(b.nargs) + " argument" + (b.nargs > 1 ? "s" : ""));
        }
        a.push_back(expr());
      }
      if (static_cast<int>(a.size()) != b.nargs) {
        pos_ = at;
        fail(std::string(b.name) + "() takes " + std::to_string(b.nargs) + " arguments");
      }
      expect(")");
      if (n == "abs" || n == "min" || n == "max") {
        auto e = make(n == "abs" ? UserExpr::Kind::abs : n == "min" ? UserExpr::Kind::min : UserExpr::Kind::max);
        e->args = std::move(a);
        return e;
      }
      return b.nargs == 2 ? op(b.op, std::move(a[0]), std::move(a[1])) : op(b.op, std::move(a[0]));
    }
    // A predefined THEORY function by its full name (abbreviations would take short names).
    if (const TheoryFnInfo* info = find_theory_function(n); info && info->name == n) {
      auto e = make(UserExpr::Kind::theory);
      e->fn = info->fn;
      expect("(");
      if (!eat(")")) {
        do e->args.push_back(expr());
        while (eat(","));
        expect(")");
      }
      const int k = static_cast<int>(e->args.size());
      if (k < info->min_args || (info->max_args >= 0 && k > info->max_args)) {
        pos_ = at;
        fail(n + "() takes " + std::to_string(info->min_args) +
             (info->max_args < 0 ? " or more" : info->max_args == info->min_args ? "" : " to " + std::to_string(info->max_args)) +
             " arguments, got " + std::to_string(k));
      }
      return e;
    }
    pos_ = at;
    fail("unknown name '" + n + "'");
  }

  std::string_view s_;
  const std::string& where_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  std::vector<std::string> params_, local_names_;
};

}  // namespace

std::vector<std::shared_ptr<const UserFunction>> parse_user_functions(std::string_view text, const std::string& where) {
  return Parser(text, where).file();
}

std::vector<std::shared_ptr<const UserFunction>> read_user_functions(const std::filesystem::path& path) {
  const auto text = io::input_file_bytes(path, kUserFcnMaxBytes, "user function file");
  return parse_user_functions(text, path.string());
}

}  // namespace tomo::musr
