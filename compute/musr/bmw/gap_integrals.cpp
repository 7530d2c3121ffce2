// libGapIntegrals' superfluid densities as native built-ins (compute/musr/bmw/gap_integrals.hpp).
#include "compute/musr/bmw/gap_integrals.hpp"

#include <array>
#include <cmath>
#include <mutex>

#include "compute/core/error.hpp"
#include "compute/musr/bmw/gap_shapes.hpp"
#include "compute/musr/bmw/gauss_legendre.hpp"
#include "compute/musr/expression.hpp"
#include "compute/musr/user_fcn.hpp"

namespace tomo::musr {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kTwoKb = 0.172346648;  // 2k_B in meV/K, the library's value
constexpr double kEnd = 30.0;           // sech²(30) < 1e-25: H and its integrands end here

double sech2(double r) {
  const double c = std::cosh(r);
  return 1.0 / (c * c);
}

// ∂H/∂D = −2D ∫₀^∞ sech²(r) tanh(r)/r dy, r = √(y² + D²).
double sech_integral_slope(double d) {
  if (d == 0.0) return 0.0;
  auto f = [d](double y) {
    const double r = std::sqrt(y * y + d * d);
    return sech2(r) * std::tanh(r) / r;
  };
  double s = 0.0;
  for (int k = 0; k < static_cast<int>(kEnd); ++k) s += gauss_legendre8(f, k, k + 1.0);
  return -2.0 * d * s;
}

// H on D = j/128 (j ≤ 128·30) with its slope, read by cubic Hermite interpolation (error ~1e-11).
struct SechTable {
  static constexpr double kStep = 1.0 / 128.0;
  std::vector<double> h, dh;
  SechTable() {
    const auto n = static_cast<std::size_t>(kEnd / kStep) + 1;
    h.resize(n), dh.resize(n);
    for (std::size_t j = 0; j < n; ++j) {
      const double d = static_cast<double>(j) * kStep;
      h[j] = gap_sech_integral(d), dh[j] = sech_integral_slope(d);
    }
  }
  double operator()(double d) const {
    const double q = d / kStep;
    if (!(q < static_cast<double>(h.size() - 1))) return 0.0;
    const auto j = static_cast<std::size_t>(q);
    const double u = q - static_cast<double>(j), u2 = u * u, u3 = u2 * u;
    return (2 * u3 - 3 * u2 + 1) * h[j] + (u3 - 2 * u2 + u) * kStep * dh[j] + (-2 * u3 + 3 * u2) * h[j + 1] +
           (u3 - u2) * kStep * dh[j + 1];
  }
};

const SechTable& sech_table() {
  static const SechTable t;
  return t;
}

// The angular part: the gap g(z) on z ∈ [0, z_end] (monotonic there), its inverse, the weight
// w(z) and the prefactor c (with the symmetric half of the d-wave folded in).
struct Angular {
  double z_end, c;
  double (*gap)(double);
  double (*inverse)(double);  // z where g(z) = x, x in [0, 1]
  double (*weight)(double);
};

Angular angular(GapSymmetry s) {
  auto one = [](double) { return 1.0; };
  auto ab = [](double z) { return 1.0 - z * z; };
  auto c = [](double z) { return z * z; };
  switch (s) {
    case GapSymmetry::d_wave:
      return {0.5, 2.0, [](double z) { return std::cos(kPi * z); }, [](double x) { return std::acos(x) / kPi; }, one};
    case GapSymmetry::point_p_ab:
    case GapSymmetry::point_p_c:
      return {1.0, s == GapSymmetry::point_p_ab ? 1.5 : 3.0, [](double z) { return std::sqrt(1.0 - z * z); },
              [](double x) { return std::sqrt(1.0 - x * x); }, s == GapSymmetry::point_p_ab ? +ab : +c};
    case GapSymmetry::line_p_ab:
    case GapSymmetry::line_p_c:
      return {1.0, s == GapSymmetry::line_p_ab ? 1.5 : 3.0, [](double z) { return z; }, [](double x) { return x; },
              s == GapSymmetry::line_p_ab ? +ab : +c};
    case GapSymmetry::s_wave: break;
  }
  return {1.0, 1.0, [](double) { return 1.0; }, [](double) { return 0.0; }, one};
}

std::mutex& table_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

double gap_sech_integral(double d) {
  auto f = [d](double y) { return sech2(std::sqrt(y * y + d * d)); };
  double s = 0.0;
  for (int k = 0; k < static_cast<int>(kEnd); ++k) s += gauss_legendre8(f, k, k + 1.0);
  return s;
}

double gap_superfluid_density(GapSymmetry g, double delta) {
  const SechTable& h = sech_table();
  if (g == GapSymmetry::s_wave) return 1.0 - h(delta);
  if (!(delta < 1e300)) return 1.0;
  const Angular a = angular(g);
  // Pieces of z between the points where δ·g(z) crosses 0, 1/2, 1, … up to kEnd (H = 0 beyond):
  // each holds at most a factor e of H's decay, so 8 Gauss–Legendre points per half resolve it.
  auto f = [&](double z) { return a.weight(z) * h(delta * std::fabs(a.gap(z))); };
  double sum = 0.0;
  const double lo = 0.0, hi = a.z_end;
  const bool rising = a.gap(hi) > a.gap(lo);
  double prev = rising ? lo : hi;  // the end where g is smallest
  for (int k = 1;; ++k) {
    const double v = 0.5 * k;
    const bool last = v >= kEnd || v >= delta;
    const double z = last ? (rising ? hi : lo) : a.inverse(v / delta);
    const double l = std::min(prev, z), r = std::max(prev, z), m = 0.5 * (l + r);
    sum += gauss_legendre8(f, l, m) + gauss_legendre8(f, m, r);
    prev = z;
    if (last) break;
  }
  // Where δ·g > kEnd, H = 0: nothing to add (the loop stopped at kEnd).
  return 1.0 - a.c * sum;
}

KtTable gap_integral_table(double g, double a1, double, unsigned differences) {
  const int k = static_cast<int>(g);
  if (k >= kGapShapeFirst) return gap_shape_table(g, a1, differences);  // gap_shapes.hpp
  if (k < 0 || k > 5) throw Error("musr: no gap symmetry " + std::to_string(k));
  static std::array<std::unique_ptr<const KtTable>, 6> cache;
  std::lock_guard lock(table_mutex());
  if (!cache[static_cast<std::size_t>(k)]) {
    auto t = std::make_unique<KtTable>();
    t->dt = 1.0 / static_cast<double>(kGapTableSteps);
    t->v.resize(kGapTableSteps + 1);
    for (std::size_t i = 0; i < kGapTableSteps; ++i) {
      const double s = static_cast<double>(i) * t->dt;
      t->v[i] = gap_superfluid_density(static_cast<GapSymmetry>(k), s / (1.0 - s));
    }
    t->v[kGapTableSteps] = 1.0;  // δ = ∞: T = 0
    cache[static_cast<std::size_t>(k)] = std::move(t);
  }
  KtTable out = *cache[static_cast<std::size_t>(k)];
  out.differences = differences;  // the arguments are constants: no differences
  if (differences) for (auto& d : out.dv) d.assign(out.v.size(), 0.0);
  return out;
}

namespace {

enum class GapForm { integral, power_law, dirty_s_wave };

struct GapFunction {
  std::string_view name;
  GapSymmetry ab, c;  // p-waves: the a,b-axis and c-axis tables; else both the one table
  bool oriented;      // takes the orientation tag (p-waves)
  GapForm form = GapForm::integral;
};

constexpr GapFunction kGaps[] = {
    {"TGapSWave", GapSymmetry::s_wave, GapSymmetry::s_wave, false},
    {"TGapDWave", GapSymmetry::d_wave, GapSymmetry::d_wave, false},
    {"TGapPointPWave", GapSymmetry::point_p_ab, GapSymmetry::point_p_c, true},
    {"TGapLinePWave", GapSymmetry::line_p_ab, GapSymmetry::line_p_c, true},
    // Closed forms of the same library: 1 − (T/Tc)^n, and the dirty-limit s-wave
    // Δ(T)/Δ0 · tanh(Δ(T)/2k_BT).
    {"TGapPowerLaw", GapSymmetry::s_wave, GapSymmetry::s_wave, false, GapForm::power_law},
    {"TGapDirtySWave", GapSymmetry::s_wave, GapSymmetry::s_wave, false, GapForm::dirty_s_wave},
};

}  // namespace

std::shared_ptr<const UserFunction> find_gap_function(std::string_view name) {
  for (const auto& g : kGaps) {
    if (g.name != name) continue;
    auto f = std::make_shared<UserFunction>();
    f->name = std::string(g.name);
    f->where = "built-in user function " + f->name + " (libGapIntegrals)";
    f->params = {"Tc", "Delta0"};
    const bool oriented = g.oriented;
    const GapForm form = g.form;
    if (form == GapForm::power_law) f->params = {"Tc", "n"};
    f->arity = [oriented, form](std::size_t n) -> std::string {
      if (form == GapForm::power_law) return n == 2 ? "" : "takes 2 arguments (Tc, n), got " + std::to_string(n);
      if (n == 2 || n == 4 || (oriented && (n == 3 || n == 5))) return {};
      return std::string(oriented ? "takes 2 to 5 arguments (Tc, Δ0[, orientation][, c0, aG])"
                                  : "takes 2 or 4 arguments (Tc, Δ0[, c0, aG])") +
             ", got " + std::to_string(n);
    };
    const GapSymmetry ab = g.ab, cax = g.c;
    f->native = [ab, cax, oriented, form](ProgramBuilder& b, std::span<const std::int32_t> a, std::int32_t t) {
      const bool tag = oriented && (a.size() == 3 || a.size() == 5);
      const bool prozorov = a.size() >= 4;
      const std::size_t k = tag ? 3 : 2;  // c0, aG
      auto c = [&](double v) { return b.constant(v); };
      // 1 for T ≤ 0, 0 for T ≥ Tc, as the library.
      auto limits = [&](std::int32_t inside) {
        return b.select(b.unary(OpCode::neg, t), c(1.0), b.select(b.sub(t, a[0]), c(0.0), inside));
      };
      if (form == GapForm::power_law) return limits(b.sub(c(1.0), b.binary(OpCode::pow, b.div(t, a[0]), a[1])));
      // Tc/T − 1, 0 at and above Tc (the result is 0 there anyway; this keeps the roots real).
      const auto ratio = b.sub(b.div(a[0], t), c(1.0));
      const auto r = b.select(ratio, ratio, c(0.0));
      const auto shape = prozorov ? b.mul(a[k], b.unary(OpCode::sqrt_abs, b.mul(a[k + 1], r)))
                                  : b.mul(c(1.82), b.binary(OpCode::pow, b.mul(c(1.018), r), c(0.51)));
      const auto reduced = b.unary(OpCode::tanh, shape);  // Δ(T)/Δ0
      const auto gap = b.mul(a[1], reduced);
      const auto delta = b.div(gap, b.mul(c(kTwoKb), t));
      if (form == GapForm::dirty_s_wave) return limits(b.mul(reduced, b.unary(OpCode::tanh, delta)));
      const auto s = b.div(delta, b.add(c(1.0), delta));
      auto rho = [&](GapSymmetry sym) { return b.table(static_cast<int>(TableKind::gap_integral), s, c(static_cast<double>(sym)), c(0.0), c(0.0)); };
      std::int32_t out = rho(ab);
      if (oriented) {
        const auto pa = out, pc = rho(cax);
        // The library's average over the axes, (ρ_ab + 2√(ρ_ab ρ_c))/3, unless a tag picks one
        // (its integer part: 0 a,b, 1 c, anything else the average).
        const auto avg = b.div(b.add(pa, b.mul(c(2.0), b.unary(OpCode::sqrt_abs, b.mul(pa, pc)))), c(3.0));
        if (!tag) {
          out = avg;
        } else {
          const auto o = a[2];
          const auto zero_or_one = b.select(b.sub(o, c(1.0)), b.select(b.sub(o, c(2.0)), avg, pc), pa);
          out = b.select(b.add(o, c(1.0)), zero_or_one, avg);  // int(o) = 0 for −1 < o < 1
        }
      }
      return limits(out);
    };
    return f;
  }
  return nullptr;
}

std::vector<std::string> gap_function_names() {
  std::vector<std::string> out;
  for (const auto& g : kGaps) out.emplace_back(g.name);
  return out;
}

}  // namespace tomo::musr
