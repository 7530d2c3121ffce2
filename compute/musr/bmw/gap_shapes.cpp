// libGapIntegrals' gaps with a shape parameter (compute/musr/bmw/gap_shapes.hpp).
#include "compute/musr/bmw/gap_shapes.hpp"

#include <cmath>
#include <limits>

#include "compute/core/error.hpp"
#include "compute/musr/bmw/gap_integrals.hpp"
#include "compute/musr/bmw/gauss_legendre.hpp"
#include "compute/musr/expression.hpp"
#include "compute/musr/user_fcn.hpp"

namespace tomo::musr {
namespace {

constexpr double kTwoKb = 0.172346648;  // 2k_B in meV/K, the library's value
constexpr int kSamples = 512;           // the grid on which q's minima are looked for
constexpr int kMaxDepth = 40;           // bisections of the adaptive quadrature
constexpr int kMaxPanels = 20000;       // panels of one ρ value (smooth integrands need a few hundred)

// H(D) = ∫₀^∞ sech²(√(y² + D²)) dy from the s-wave's cached curve (ρ_s = 1 − H).
double sech_integral(double d) { return 1.0 - gap_superfluid_density(GapSymmetry::s_wave, d); }

// The two-gap d-waves integrate E up to the library's cut-off E_c = T + Δ_D (T in K read as meV),
// Y = E_c/2k_BT = 1/(2k_B) + δ_D: H less its tail ∫_Y^∞, where sech² ≈ 4e^(−2r) still matters (1e-5).
double sech_integral_to(double d, double y_end) {
  auto f = [d](double y) {
    const double c = std::cosh(std::sqrt(y * y + d * d));
    return 1.0 / (c * c);
  };
  const double tail = gauss_legendre8(f, y_end, y_end + 2.0) + gauss_legendre8(f, y_end + 2.0, y_end + 6.0) +
                      gauss_legendre8(f, y_end + 6.0, y_end + 16.0);
  return sech_integral(d) - tail;
}

bool two_gaps(GapShape s) { return s == GapShape::cos_sq_d_wave || s == GapShape::sin_sq_d_wave; }
double phi_end(GapShape s) { return two_gaps(s) ? kPi : 0.5 * kPi; }

double weight(GapShape s, double phi) {
  if (s == GapShape::cos_sq_d_wave) return std::cos(phi) * std::cos(phi);
  if (s == GapShape::sin_sq_d_wave) return std::sin(phi) * std::sin(phi);
  return 1.0;
}

// Bisects until the halves agree with the whole to 1e-12; `budget` bounds the panels of one
// integral, so no input makes it run away.
double adaptive(const auto& f, double l, double r, double whole, int depth, int& budget) {
  const double m = 0.5 * (l + r);
  const double a = gauss_legendre8(f, l, m), b = gauss_legendre8(f, m, r);
  budget -= 2;
  if (depth == 0 || budget <= 0 || !(std::fabs(a + b - whole) > 1e-12)) return a + b;  // NaN stops too
  return adaptive(f, l, m, a, depth - 1, budget) + adaptive(f, m, r, b, depth - 1, budget);
}

// The minima of q on [0, φ_end] (interior ones refined by golden-section search): H peaks there.
std::vector<double> split_points(GapShape s, double a) {
  const double h = phi_end(s) / kSamples;
  std::vector<double> out = {0.0};
  for (int i = 1; i < kSamples; ++i) {
    const double q0 = gap_shape_q(s, a, (i - 1) * h), q1 = gap_shape_q(s, a, i * h), q2 = gap_shape_q(s, a, (i + 1) * h);
    if (!(q1 <= q0 && q1 < q2)) continue;
    double l = (i - 1) * h, r = (i + 1) * h;
    const double g = 0.5 * (std::sqrt(5.0) - 1.0);
    for (int k = 0; k < 80; ++k) {
      const double x1 = r - g * (r - l), x2 = l + g * (r - l);
      if (gap_shape_q(s, a, x1) < gap_shape_q(s, a, x2)) r = x2;
      else l = x1;
    }
    out.push_back(0.5 * (l + r));
  }
  out.push_back(phi_end(s));
  return out;
}

}  // namespace

double gap_shape_q(GapShape s, double a, double phi) {
  switch (s) {
    case GapShape::an_s_wave: {
      const double g = 1.0 + a * std::cos(4.0 * phi);
      return g * g;
    }
    case GapShape::non_mon_d_wave1: {
      const double g = a * std::cos(2.0 * phi) + (1.0 - a) * std::cos(6.0 * phi);
      return g * g;
    }
    case GapShape::non_mon_d_wave2: {
      const double c = std::cos(2.0 * phi), c2 = c * c, d = 1.0 + a * c2;
      return 4.0 * a / 27.0 * c2 / (d * d * d);
    }
    case GapShape::cos_sq_d_wave:
    case GapShape::sin_sq_d_wave: {
      const double g = std::cos(2.0 * phi) + a;  // Δ_D cos 2φ + Δ_S over Δ_D
      return g * g;
    }
  }
  return 1.0;
}

namespace {

// ρ at δ with q's minima `pts` (from split_points).
double density(GapShape s, double a, double delta, const std::vector<double>& pts) {
  if (!(delta < 1e300)) return 1.0;
  const bool cut = two_gaps(s);
  const double y_end = 1.0 / kTwoKb + delta;
  auto f = [&](double phi) {
    const double q = gap_shape_q(s, a, phi);
    // A negative q (TGapNonMonDWave2 with 1 + a cos² 2φ < 0) has no real gap: NaN, as the library
    // (and a NaN shape gives NaN, where the cached H would read 0).
    if (!(q >= 0.0)) return std::numeric_limits<double>::quiet_NaN();
    const double d = delta * std::sqrt(q);
    return weight(s, phi) * (cut ? sech_integral_to(d, y_end) : sech_integral(d));
  };
  double sum = 0.0;
  int budget = kMaxPanels;
  for (std::size_t i = 1; i < pts.size(); ++i)
    sum += adaptive(f, pts[i - 1], pts[i], gauss_legendre8(f, pts[i - 1], pts[i]), kMaxDepth, budget);
  return 1.0 - 2.0 / kPi * sum;
}

}  // namespace

double gap_shape_density(GapShape s, double a, double delta) { return density(s, a, delta, split_points(s, a)); }

KtTable gap_shape_table(double g, double a, unsigned differences) {
  const int k = static_cast<int>(g);
  if (k < kGapShapeFirst || k > kGapShapeLast) throw Error("musr: no gap shape " + std::to_string(k));
  const auto shape = static_cast<GapShape>(k);
  auto curve = [&](double av) {
    const auto pts = split_points(shape, av);
    std::vector<double> v(kGapTableSteps + 1);
    for (std::size_t i = 0; i < kGapTableSteps; ++i) {
      const double s = static_cast<double>(i) / static_cast<double>(kGapTableSteps);
      v[i] = density(shape, av, s / (1.0 - s), pts);
    }
    v[kGapTableSteps] = 1.0;  // δ = ∞: T = 0
    return v;
  };
  KtTable t;
  t.dt = 1.0 / static_cast<double>(kGapTableSteps);
  t.v = curve(a);
  t.differences = differences;
  for (auto& d : t.dv) d.assign(t.v.size(), 0.0);
  if (differences & 2u) {
    const double h = 1e-5 * std::max(std::fabs(a), 1e-2);
    const auto up = curve(a + h), dn = curve(a - h);
    for (std::size_t i = 0; i < t.v.size(); ++i) t.dv[1][i] = (up[i] - dn[i]) / (2.0 * h);
  }
  return t;
}

namespace {

struct ShapeFunction {
  std::string_view name;
  GapShape shape;
};
constexpr ShapeFunction kShapes[] = {
    {"TGapAnSWave", GapShape::an_s_wave},
    {"TGapNonMonDWave1", GapShape::non_mon_d_wave1},
    {"TGapNonMonDWave2", GapShape::non_mon_d_wave2},
    {"TGapCosSqDWave", GapShape::cos_sq_d_wave},
    {"TGapSinSqDWave", GapShape::sin_sq_d_wave},
};

}  // namespace

std::shared_ptr<const UserFunction> find_gap_shape_function(std::string_view name) {
  for (const auto& g : kShapes) {
    if (g.name != name) continue;
    auto f = std::make_shared<UserFunction>();
    f->name = std::string(g.name);
    f->where = "built-in user function " + f->name + " (libGapIntegrals)";
    const GapShape shape = g.shape;
    const bool two = two_gaps(shape);
    f->params = two ? std::vector<std::string>{"Tc", "Delta0_D", "Delta0_S"} : std::vector<std::string>{"Tc", "Delta0", "a"};
    f->arity = [two](std::size_t n) -> std::string {
      if (two) {
        if (n == 3) return {};
        return "takes 3 arguments (Tc, Δ0_D, Δ0_S), got " + std::to_string(n) +
               (n == 7 ? " (the form with c0, aG for each gap, whose ratio changes with T, is not provided)" : "");
      }
      if (n == 3 || n == 5) return {};
      return "takes 3 or 5 arguments (Tc, Δ0, a[, c0, aG]), got " + std::to_string(n);
    };
    f->native = [shape](ProgramBuilder& b, std::span<const std::int32_t> a, std::int32_t t) {
      auto c = [&](double v) { return b.constant(v); };
      // Δ(T) as the library's other gaps: Δ0 tanh(c0 √(aG (Tc/T − 1))), or with 1.82, 1.018, 0.51.
      const auto ratio = b.sub(b.div(a[0], t), c(1.0));
      const auto r = b.select(ratio, ratio, c(0.0));
      const auto shape_t = a.size() == 5 ? b.mul(a[3], b.unary(OpCode::sqrt_abs, b.mul(a[4], r)))
                                         : b.mul(c(1.82), b.binary(OpCode::pow, b.mul(c(1.018), r), c(0.51)));
      const auto delta = b.div(b.mul(a[1], b.unary(OpCode::tanh, shape_t)), b.mul(c(kTwoKb), t));
      const auto s = b.div(delta, b.add(c(1.0), delta));
      // The two-gap d-waves: both gaps follow one Δ(T)/Δ0, so their ratio Δ0_S/Δ0_D is the shape.
      const auto shape_arg = two_gaps(shape) ? b.div(a[2], a[1]) : a[2];
      const auto rho = b.table(static_cast<int>(TableKind::gap_integral), s, c(static_cast<double>(shape)), shape_arg, c(0.0));
      // 1 for T ≤ 0, 0 for T ≥ Tc, as the library.
      return b.select(b.unary(OpCode::neg, t), c(1.0), b.select(b.sub(t, a[0]), c(0.0), rho));
    };
    return f;
  }
  return nullptr;
}

std::vector<std::string> gap_shape_function_names() {
  std::vector<std::string> out;
  for (const auto& g : kShapes) out.emplace_back(g.name);
  return out;
}

}  // namespace tomo::musr
