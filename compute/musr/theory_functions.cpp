// musrfit's predefined THEORY functions (notes: musrfit-facts.md, "Predefined functions"),
// emitted as sub-trees of primitive ops so that every backend evaluates the same program.
#include <algorithm>
#include <cctype>

#include "compute/core/error.hpp"
#include "compute/musr/expression.hpp"
#include "compute/musr/theory_builders.hpp"

namespace tomo::musr {

const std::vector<TheoryFnInfo>& theory_functions() {
  static const std::vector<TheoryFnInfo> table = {
      {TheoryFn::constant, "const", "c", 1, 1},
      {TheoryFn::asymmetry, "asymmetry", "a", 1, 1},
      {TheoryFn::simpl_expo, "simplExpo", "se", 1, 2},
      {TheoryFn::gener_expo, "generExpo", "ge", 2, 3},
      {TheoryFn::simple_gss, "simpleGss", "sg", 1, 2},
      {TheoryFn::stat_gss_kt, "statGssKT", "stg", 1, 2},
      {TheoryFn::stat_exp_kt, "statExpKT", "sekt", 1, 2},
      {TheoryFn::combi_lgkt, "combiLGKT", "lgkt", 2, 3},
      {TheoryFn::str_kt, "strKT", "skt", 2, 3},
      {TheoryFn::abragam, "abragam", "ab", 2, 3},
      {TheoryFn::tfield_cos, "TFieldCos", "tf", 2, 3},
      {TheoryFn::bessel, "bessel", "b", 2, 3},
      {TheoryFn::intern_fld, "internFld", "if", 5, 6},
      {TheoryFn::intern_bsl, "internBsl", "ib", 5, 6},
      {TheoryFn::polynom, "polynom", "p", 2, -1},
      {TheoryFn::stat_gss_kt_lf, "statGssKTLF", "sgktlf", 2, 3},
      {TheoryFn::dyn_gss_kt_lf, "dynGssKTLF", "dgktlf", 3, 4},
      {TheoryFn::stat_exp_kt_lf, "statExpKTLF", "sektlf", 2, 3},
      {TheoryFn::dyn_exp_kt_lf, "dynExpKTLF", "dektlf", 3, 4},
      {TheoryFn::spin_glass, "spinGlass", "spg", 3, 4},
      {TheoryFn::rd_aniso_hf, "rdAnisoHf", "rahf", 2, 3},
      {TheoryFn::intern_fld_gk, "internFldGK", "ifgk", 5, 6},
      // musrfit reads five arguments and no tshift (its table lists four)
      {TheoryFn::intern_fld_ll, "internFldLL", "ifll", 5, 5},
      {TheoryFn::skewed_gss, "skewedGss", "skg", 4, 5},
      {TheoryFn::static_nk_zf, "staticNKZF", "snkzf", 2, 3},
      {TheoryFn::static_nk_tf, "staticNKTF", "snktf", 4, 5},
      {TheoryFn::dynamic_nk_zf, "dynamicNKZF", "dnkzf", 3, 4},
      {TheoryFn::dynamic_nk_tf, "dynamicNKTF", "dnktf", 5, 6},
      {TheoryFn::mu_minus_exp_tf, "muMinusExpTF", "mmsetf", 6, 7},
  };
  return table;
}

const TheoryFnInfo* find_theory_function(std::string_view name) {
  auto iequal = [](std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
             return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
  };
  for (const auto& f : theory_functions())
    if (iequal(name, f.name) || iequal(name, f.abbrev)) return &f;
  return nullptr;
}

namespace {

const TheoryFnInfo& info_of(TheoryFn fn) {
  for (const auto& f : theory_functions())
    if (f.fn == fn) return f;
  throw Error("musr: unknown theory function id");
}

// ⅓ + ⅔·(1 − u)·exp(−w): the shape shared by the Kubo–Toyabe functions. Thirds are written
// 1.0/3.0 ([Locans2017]'s CUDA sample `(1/3)` is integer division and returns 0).
std::int32_t kubo_toyabe(ProgramBuilder& b, std::int32_t u, std::int32_t w) {
  auto one = b.constant(1.0);
  auto body = b.mul(b.sub(one, u), b.unary(OpCode::exp, b.unary(OpCode::neg, w)));
  return b.add(b.constant(1.0 / 3.0), b.mul(b.constant(2.0 / 3.0), body));
}

// φπ/180 + 2πν·t
std::int32_t phase(ProgramBuilder& b, std::int32_t phi_deg, std::int32_t nu, std::int32_t tt) {
  return b.add(b.mul(b.constant(kPi / 180.0), phi_deg), b.mul(b.mul(b.constant(2.0 * kPi), nu), tt));
}

// α·osc·e^(−λT t) + (1 − α)·e^(−λL t)  (internFld / internBsl)
std::int32_t internal_field(ProgramBuilder& b, std::span<const std::int32_t> a, std::int32_t tt, OpCode osc) {
  auto o = b.unary(osc, phase(b, a[1], a[2], tt));
  auto et = b.unary(OpCode::exp, b.unary(OpCode::neg, b.mul(a[3], tt)));
  auto el = b.unary(OpCode::exp, b.unary(OpCode::neg, b.mul(a[4], tt)));
  return b.add(b.mul(b.mul(a[0], o), et), b.mul(b.sub(b.constant(1.0), a[0]), el));
}

}  // namespace

std::int32_t build_theory_function(ProgramBuilder& b, TheoryFn fn, std::span<const std::int32_t> a, std::int32_t t) {
  const auto& info = info_of(fn);
  const int n = static_cast<int>(a.size());
  if (n < info.min_args || (info.max_args >= 0 && n > info.max_args))
    throw InputError(std::string(info.name) + " takes " + std::to_string(info.min_args) +
                     (info.max_args < 0 ? " or more" : info.max_args == info.min_args ? "" : " or " + std::to_string(info.max_args)) +
                     " arguments, got " + std::to_string(n));
  // tshift: last argument where optional (polynom: always the first).
  const bool has_tshift = fn != TheoryFn::polynom && n > info.min_args;
  const std::int32_t tt = has_tshift ? b.sub(t, a[n - 1]) : t;
  auto neg = [&](std::int32_t x) { return b.unary(OpCode::neg, x); };
  auto ex = [&](std::int32_t x) { return b.unary(OpCode::exp, x); };
  auto half = b.constant(0.5);
  switch (fn) {
    case TheoryFn::constant:
    case TheoryFn::asymmetry: return a[0];
    case TheoryFn::simpl_expo: return ex(neg(b.mul(a[0], tt)));  // e^(−λt)
    case TheoryFn::gener_expo: {
      // exp(−(λt)^β); musrfit returns 0 where λt < 0 (for non-integer β; here for every β).
      auto x = b.mul(a[0], tt);
      return b.select(x, ex(neg(b.binary(OpCode::pow, x, a[1]))), b.constant(0.0));
    }
    case TheoryFn::simple_gss: {  // exp(−½(σt)²)
      auto st = b.mul(a[0], tt);
      return ex(neg(b.mul(half, b.mul(st, st))));
    }
    case TheoryFn::stat_gss_kt: {  // ⅓[1 + 2(1−σ²t²)e^(−σ²t²/2)]
      auto st = b.mul(a[0], tt);
      auto s2 = b.mul(st, st);
      return kubo_toyabe(b, s2, b.mul(half, s2));
    }
    case TheoryFn::stat_exp_kt: {  // ⅓[1 + 2(1−λt)e^(−λt)]
      auto lt = b.mul(a[0], tt);
      return kubo_toyabe(b, lt, lt);
    }
    case TheoryFn::combi_lgkt: {  // ⅓[1 + 2(1−λt−σ²t²)exp(−λt−½σ²t²)]
      auto lt = b.mul(a[0], tt);
      auto st = b.mul(a[1], tt);
      auto s2 = b.mul(st, st);
      return kubo_toyabe(b, b.add(lt, s2), b.add(lt, b.mul(half, s2)));
    }
    case TheoryFn::str_kt: {  // x = (σt)^β: ⅓[1 + 2(1−x)e^(−x/β)]; x = 0 where σt < 0
      auto st = b.mul(a[0], tt);
      auto x = b.select(st, b.binary(OpCode::pow, st, a[1]), b.constant(0.0));
      return kubo_toyabe(b, x, b.div(x, a[1]));
    }
    case TheoryFn::abragam: {  // exp(−(σ/γ)²(e^(−γt) − 1 + γt))
      auto r = b.div(a[0], a[1]);
      auto gt = b.mul(a[1], tt);
      auto inner = b.add(b.sub(ex(neg(gt)), b.constant(1.0)), gt);
      return ex(neg(b.mul(b.mul(r, r), inner)));
    }
    case TheoryFn::tfield_cos: return b.unary(OpCode::cos, phase(b, a[0], a[1], tt));
    case TheoryFn::bessel: return b.unary(OpCode::bessel_j0, phase(b, a[0], a[1], tt));
    case TheoryFn::intern_fld: return internal_field(b, a, tt, OpCode::cos);
    case TheoryFn::intern_bsl: return internal_field(b, a, tt, OpCode::bessel_j0);
    case TheoryFn::polynom: {  // Σ p_i (t − tshift)^i, Horner
      auto x = b.sub(t, a[0]);
      auto acc = a[n - 1];
      for (int i = n - 2; i >= 1; --i) acc = b.add(b.mul(acc, x), a[i]);
      return acc;
    }
    case TheoryFn::stat_gss_kt_lf:
    case TheoryFn::dyn_gss_kt_lf:
    case TheoryFn::stat_exp_kt_lf:
    case TheoryFn::dyn_exp_kt_lf: return build_kt_lf(b, fn, a, tt, t);
    default: return build_more_theory(b, fn, a, tt, t);
  }
  throw Error("musr: unhandled theory function");
}

}  // namespace tomo::musr
