// libLFRelaxation's classes resolve to musrfit's predefined LF Kubo–Toyabe functions with the
// library's parameter convention (ν_L in MHz, width in µs⁻¹, hopping rate in MHz): checked
// against BMW's approximation of the dynamic exponential KT written out here, at the
// parameters musrfit fitted in the library's example, and at the library's edges.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "compute/musr/bmw/lf_relaxation.hpp"
#include "compute/musr/expression.hpp"
#include "compute/musr/user_fcn.hpp"

namespace tomo::musr {
namespace {

// The user function of `name` at (args) over `ts`.
std::vector<double> values(const std::string& name, const std::vector<double>& args, const std::vector<double>& ts) {
  const auto f = resolve_user_function("libLFRelaxation", name, ".");
  ProgramBuilder b(static_cast<int>(args.size()));
  std::vector<std::int32_t> a;
  for (int i = 0; i < static_cast<int>(args.size()); ++i) a.push_back(b.param(i));
  const Program p = b.finish(build_user_function(b, *f, a, b.time()));
  ProgramEvaluator ev(p);
  ev.prepare(args, false);
  std::vector<double> out;
  for (double t : ts) out.push_back(ev.value(t));
  return out;
}

// BMW's approximation of the LF dynamic exponential KT (valid for ν > 5a or ω_L > 30a):
// exp(−(4/3)a[b₁(1 − j₀e^(−νt)) + b₂j₁e^(−νt) + (1 − b₂ω/3 − b₁ν)t]) with b₁, b₂ rational in ω, ν.
double bmw_approximation(double nu_l, double a, double nu, double t) {
  const double w = 2.0 * 3.14159265358979323846 * nu_l;
  const double c[7] = {1.15331, 1.64826, -0.71763, 3.0, 0.386683, -5.01876, 2.41854};
  const double d[4] = {2.44056, 2.92063, 1.69581, 0.667277};
  const double denom = w * w * w * w + d[0] * w * w * w * nu + d[1] * w * w * nu * nu + d[2] * w * nu * nu * nu + d[3] * nu * nu * nu * nu;
  const double b1 = (c[0] * w * w * w + c[1] * w * w * nu + c[2] * w * nu * nu) / denom;
  const double b2 = (c[3] * w * w * w + c[4] * w * w * nu + c[5] * w * nu * nu + c[6] * nu * nu * nu) / denom;
  const double x = w * t;
  const double j0 = std::fabs(x) < 1e-5 ? 1.0 : std::sin(x) / x;
  const double j1 = std::fabs(x) < 1e-5 ? 0.0 : (std::sin(x) - x * std::cos(x)) / (x * x);
  const double e = std::exp(-nu * t);
  return std::exp(-4.0 / 3.0 * a * (b1 * (1.0 - j0 * e) + b2 * j1 * e + (1.0 - b2 * w / 3.0 - b1 * nu) * t));
}

TEST(MusrLfRelaxation, DynExpKTIsBmwsApproximationAtTheExamplesFittedParameters) {
  // test-libLFRelaxation-MUD.msr: field 49.5715 G (ν_L = γ_μ/2π·B), a = 0.28921, ν = 1.76711 > 5a.
  const double nu_l = 49.5715 * 0.01355388094, a = 0.28921, nu = 1.76711;
  std::vector<double> ts;
  for (int k = 0; k <= 80; ++k) ts.push_back(0.1 * k);
  const auto got = values("TLFDynExpKT", {nu_l, a, nu}, ts);
  for (std::size_t k = 0; k < ts.size(); ++k) EXPECT_NEAR(got[k], bmw_approximation(nu_l, a, nu, ts[k]), 1e-9) << "t " << ts[k];
  EXPECT_LT(got.back(), 0.3);  // relaxes: not a constant or a swapped argument
}

TEST(MusrLfRelaxation, EdgesAsTheLibrary) {
  const std::vector<double> ts = {-1.0, 0.0, 20.5, 25.0};
  for (const char* name : {"TLFDynExpKT", "TLFDynGssKT"}) {
    const auto v = values(name, {0.5, 0.3, 2.0}, ts);
    EXPECT_DOUBLE_EQ(v[0], 1.0) << name;  // before t0
    EXPECT_NEAR(v[1], 1.0, 1e-12) << name;
    EXPECT_EQ(v[2], 0.0) << name;  // the library's 20 µs end
    EXPECT_EQ(v[3], 0.0) << name;
  }
  // Static ones: two arguments, 1/3 tail in zero field as the static KT.
  const auto g = values("TLFStatGssKT", {0.0, 0.5}, {30.0});
  EXPECT_NEAR(g[0], 1.0 / 3.0, 1e-6);
  const auto e = values("TLFStatExpKT", {0.0, 0.5}, {60.0});
  EXPECT_NEAR(e[0], 1.0 / 3.0, 1e-6);
  EXPECT_EQ(lf_relaxation_function_names(), (std::vector<std::string>{"TLFStatGssKT", "TLFStatExpKT", "TLFDynGssKT", "TLFDynExpKT"}));
  EXPECT_EQ(find_lf_relaxation_function("TLFDynSG"), nullptr);  // not mapped: no predefined twin
}

}  // namespace
}  // namespace tomo::musr
