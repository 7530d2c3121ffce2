// FUNCTIONS expressions: a recursive-descent parser to an Expr tree (no eval of text) and
// its lowering into a ProgramBuilder.
#include <cctype>
#include <charconv>
#include <cmath>

#include "compute/core/error.hpp"
#include "compute/musr/expression.hpp"
#include "compute/musr/quoted_text.hpp"

namespace tomo::musr {
namespace {

struct FnName {
  std::string_view name;
  OpCode op;
};
constexpr FnName kFunctions[] = {
    {"cos", OpCode::cos},     {"sin", OpCode::sin},     {"tan", OpCode::tan},     {"cosh", OpCode::cosh},
    {"sinh", OpCode::sinh},   {"tanh", OpCode::tanh},   {"acos", OpCode::acos},   {"asin", OpCode::asin},
    {"atan", OpCode::atan},   {"acosh", OpCode::acosh}, {"asinh", OpCode::asinh}, {"atanh", OpCode::atanh},
    {"exp", OpCode::exp},     {"log", OpCode::log10_abs}, {"ln", OpCode::ln_abs}, {"sqrt", OpCode::sqrt_abs},
    {"pow", OpCode::pow},
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  std::unique_ptr<Expr> parse() {
    // Bounded before parsing: the parser, the lowering and the tree's destructor recurse once
    // per nesting level and once per operand of a flat sum.
    if (s_.size() > kMaxExpressionChars)
      throw InputError("FUNCTIONS expression '" + quoted_excerpt(s_) + "' has " + std::to_string(s_.size()) +
                       " characters, more than the " + std::to_string(kMaxExpressionChars) + " allowed");
    auto e = expr();
    skip();
    if (pos_ < s_.size()) fail("unexpected '" + quoted_excerpt(s_.substr(pos_, 1)) + "'");
    return e;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError("FUNCTIONS expression '" + quoted_excerpt(s_) + "': " + what + " at column " +
                     std::to_string(pos_ + 1));
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  static std::unique_ptr<Expr> make(Expr::Kind k) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    return e;
  }
  static std::unique_ptr<Expr> node(OpCode op, std::unique_ptr<Expr> a, std::unique_ptr<Expr> b = nullptr) {
    auto e = make(b ? Expr::Kind::binary : Expr::Kind::unary);
    e->op = op;
    e->args.push_back(std::move(a));
    if (b) e->args.push_back(std::move(b));
    return e;
  }

  std::unique_ptr<Expr> expr() {
    auto e = term();
    for (;;) {
      if (eat('+')) e = node(OpCode::add, std::move(e), term());
      else if (eat('-')) e = node(OpCode::sub, std::move(e), term());
      else return e;
    }
  }
  std::unique_ptr<Expr> term() {
    auto e = factor();
    for (;;) {
      if (eat('*')) e = node(OpCode::mul, std::move(e), factor());
      else if (eat('/')) e = node(OpCode::div, std::move(e), factor());
      else return e;
    }
  }
  // Every nesting (parenthesis, function call, unary sign) passes through here once.
  std::unique_ptr<Expr> factor() {
    if (++depth_ > kMaxExpressionDepth)
      fail("nested more than " + std::to_string(kMaxExpressionDepth) + " deep (parentheses, calls and signs)");
    std::unique_ptr<Expr> e;
    if (eat('-')) e = node(OpCode::neg, factor());
    else if (eat('+')) e = factor();
    else e = primary();
    --depth_;
    return e;
  }
  std::unique_ptr<Expr> number() {
    const char* b = s_.data() + pos_;
    double v = 0.0;
    auto [p, ec] = std::from_chars(b, s_.data() + s_.size(), v);
    if (ec != std::errc() || !std::isfinite(v)) fail("bad number");
    pos_ += static_cast<std::size_t>(p - b);
    auto e = make(Expr::Kind::number);
    e->number = v;
    return e;
  }
  std::unique_ptr<Expr> primary() {
    skip();
    if (pos_ >= s_.size()) fail("expression ends where an operand is expected");
    char c = s_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (eat('(')) {
      auto e = expr();
      expect(')');
      return e;
    }
    if (!std::isalpha(static_cast<unsigned char>(c))) fail("unexpected '" + quoted_excerpt(s_.substr(pos_, 1)) + "'");
    std::size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    std::string word = lower(s_.substr(start, pos_ - start));
    if (word == "pi" || word == "gamma_mu") {
      auto e = make(Expr::Kind::number);
      e->number = word == "pi" ? kPi : kGammaMuOver2Pi;
      return e;
    }
    for (auto [prefix, kind] : {std::pair{std::string_view("par"), Expr::Kind::param},
                                std::pair{std::string_view("map"), Expr::Kind::map},
                                std::pair{std::string_view("fun"), Expr::Kind::fun}}) {
      if (word.size() > prefix.size() && word.starts_with(prefix)) {
        std::string_view digits(word.data() + prefix.size(), word.size() - prefix.size());
        int n = 0;
        auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
        if (ec != std::errc() || p != digits.data() + digits.size() || n < 1) {
          pos_ = start;
          fail("bad reference '" + quoted_excerpt(word) + "' (expected " + std::string(prefix) + "N with N ≥ 1)");
        }
        auto e = make(kind);
        e->ref = n;
        return e;
      }
    }
    for (const auto& f : kFunctions) {
      if (word != f.name) continue;
      auto e = make(Expr::Kind::call);
      e->op = f.op;
      expect('(');
      e->args.push_back(expr());
      if (f.op == OpCode::pow) {
        expect(',');
        e->args.push_back(expr());
      }
      expect(')');
      return e;
    }
    pos_ = start;
    fail("unknown name '" + quoted_excerpt(word) + "'");
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

std::unique_ptr<Expr> parse_expression(std::string_view text) { return Parser(text).parse(); }

std::int32_t lower_expression(const Expr& e, ProgramBuilder& b, ExprResolver& r) {
  switch (e.kind) {
    case Expr::Kind::number: return b.constant(e.number);
    case Expr::Kind::param: return r.param(e.ref);
    case Expr::Kind::map: return r.map(e.ref);
    case Expr::Kind::fun: return r.fun(e.ref);
    case Expr::Kind::time: return b.time();
    case Expr::Kind::unary: return b.unary(e.op, lower_expression(*e.args.at(0), b, r));
    case Expr::Kind::binary:
    case Expr::Kind::call:
      if (e.args.size() == 2)
        return b.binary(e.op, lower_expression(*e.args[0], b, r), lower_expression(*e.args[1], b, r));
      return b.unary(e.op, lower_expression(*e.args.at(0), b, r));
  }
  throw Error("musr: unhandled expression kind");
}

}  // namespace tomo::musr
