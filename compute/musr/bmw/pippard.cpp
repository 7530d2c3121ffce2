// libPNL_PippardFitter's PNL_PippardFitter (compute/musr/bmw/pippard.hpp): its tables and the
// user function; the field profile is in pippard_field.cpp.
#include "compute/musr/bmw/pippard.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <span>
#include <sstream>
#include <string_view>
#include <system_error>
#include <tuple>

#include "compute/core/error.hpp"
#include "compute/io/input_file.hpp"
#include "compute/musr/bmw/recent_builds.hpp"
#include "compute/musr/expression.hpp"
#include "compute/musr/quoted_text.hpp"
#include "compute/musr/rge_profiles.hpp"
#include "compute/musr/user_fcn.hpp"

namespace tomo::musr::bmw {
namespace {

constexpr double kGamma = 0.0851615503527;  // rad/(µs G): the library's γ_μ
constexpr double kDegree = 0.0174532925199;  // the library's degree
constexpr double kTableSpan = 20.0;          // µs: the tables' reach (later times read the last value)
constexpr std::size_t kMaxTablePoints = std::size_t{1} << 20;
constexpr double kQuiet = 1e-9;  // the library stops after 11 depths in a row below this
constexpr const char* kName = "PNL_PippardFitter";


// PRgeHandler's density at z [nm]: linear between the rows around z, from 0 at z = 0 over the
// first row's spacing, 0 beyond the last depth.
double stopping_density(const PippardSettings& s, double z) {
  const auto& d = s.depth_nm;
  if (z < 0.0 || z > d.back()) return 0.0;
  const auto it = std::lower_bound(d.begin(), d.end(), z);
  const auto i = static_cast<std::size_t>(it - d.begin());
  if (i == 0) return s.density[0] * z / (d[1] - d[0]);
  return s.density[i - 1] + (s.density[i] - s.density[i - 1]) * (z - d[i - 1]) / (d[i] - d[i - 1]);
}

SettingsList<PippardSettings>& registry() {
  static SettingsList<PippardSettings> r;
  return r;
}

int register_settings(std::shared_ptr<const PippardSettings> s) {
  return registry().add(std::move(s), [] { throw InputError("musr: more than 64 different PNL_PippardFitter settings in one process"); });
}

std::shared_ptr<const PippardSettings> settings_of(int id) {
  auto s = registry().at(id);
  if (!s) throw Error("musr: no PNL_PippardFitter settings " + std::to_string(id));
  return s;
}

// One depth's term: the density, ω and its derivatives by (B, λ_L, d).
struct Term {
  double n, omega;
  std::array<double, 3> d_omega;
};

// The depths z = 0, 1, 2, … nm up to the library's stop (11 in a row without muons), those
// holding muons.
std::vector<Term> terms(const PippardSettings& s, const PippardField& f, double field, double dead) {
  std::vector<Term> out;
  int quiet = 0;
  for (double z = 0.0; quiet <= 10; z += 1.0) {
    const double n = stopping_density(s, z);
    quiet = std::fabs(n) < kQuiet ? quiet + 1 : 0;
    if (n == 0.0) continue;
    const double x = z - dead;
    if (z < dead || x <= 0.0) {
      out.push_back({n, kGamma * field, {kGamma, 0.0, 0.0}});
      continue;
    }
    const double b = f.at(x);
    out.push_back({n, kGamma * field * b, {kGamma * b, kGamma * field * f.at_lambda(x), -kGamma * field * f.slope(x)}});
  }
  return out;
}

struct Grid {
  double dt = 1e-3;
  std::size_t n = 0;
};
Grid grid_for(double field) {
  const double omega = kGamma * std::fabs(field);
  Grid g;
  // ω·dt ≤ 2⁻⁸ (linear interpolation to (ω dt)²/8 < 2·10⁻⁶ of the amplitude) with dt a power of
  // 2, so that the grid does not move with a small change of B (differences in B see the same
  // interpolation).
  g.dt = std::exp2(std::floor(std::log2(std::exp2(-8.0) / std::max(omega, 1.0))));
  g.n = static_cast<std::size_t>(std::ceil(kTableSpan / g.dt)) + 1;
  if (g.n > kMaxTablePoints) {
    g.n = kMaxTablePoints;
    g.dt = kTableSpan / static_cast<double>(g.n - 1);
  }
  return g;
}

// C and S at one point (B, λ_L, d) and, for each bit j of `bits`, their derivatives by argument
// j: C(t_k) + i S(t_k) = Σ n e^(iω t_k), ∂C = −t Σ n ∂ω sin ωt, ∂S = t Σ n ∂ω cos ωt, at
// t_k = k·dt; each block of 256 points (one per thread) starts its phasors afresh and advances
// them by e^(iω dt).
struct Pair {
  Grid grid;
  std::vector<double> c, s;
  std::array<std::vector<double>, 3> dc, ds;
  unsigned bits = 0;
};

Pair sums(const std::vector<Term>& terms, const Grid& g, unsigned bits) {
  Pair out;
  out.grid = g, out.bits = bits;
  out.c.assign(g.n, 0.0), out.s.assign(g.n, 0.0);
  for (std::size_t j = 0; j < 3; ++j)
    if (bits & (1u << j)) out.dc[j].assign(g.n, 0.0), out.ds[j].assign(g.n, 0.0);
  // Structure of arrays padded to lanes of 4 (zero terms), summed lane-wise so that the
  // compiler vectorises across depths.
  constexpr std::size_t L = 4;
  const std::size_t m = (terms.size() + L - 1) / L * L;
  std::vector<double> rr(m, 1.0), ri(m, 0.0), n(m, 0.0), om(m, 0.0);
  std::array<std::vector<double>, 3> w;
  for (auto& v : w) v.assign(m, 0.0);
  for (std::size_t z = 0; z < terms.size(); ++z) {
    om[z] = terms[z].omega, n[z] = terms[z].n;
    rr[z] = std::cos(om[z] * g.dt), ri[z] = std::sin(om[z] * g.dt);
    for (std::size_t j = 0; j < 3; ++j) w[j][z] = terms[z].n * terms[z].d_omega[j];
  }
  constexpr std::size_t kBlock = 256;
  const auto blocks = static_cast<std::ptrdiff_t>((g.n + kBlock - 1) / kBlock);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t blk = 0; blk < blocks; ++blk) {
    const std::size_t k0 = static_cast<std::size_t>(blk) * kBlock, k1 = std::min(g.n, k0 + kBlock);
    std::vector<double> pr(m), pi(m);
    for (std::size_t z = 0; z < m; ++z) {
      const double ph = om[z] * static_cast<double>(k0) * g.dt;
      pr[z] = std::cos(ph), pi[z] = std::sin(ph);
    }
    for (std::size_t k = k0; k < k1; ++k) {
      double c[L] = {}, sn[L] = {}, dc[3][L] = {}, ds[3][L] = {};
      for (std::size_t z = 0; z < m; z += L) {
        for (std::size_t l = 0; l < L; ++l) {
          const double x = pr[z + l], y = pi[z + l];
          c[l] += n[z + l] * x, sn[l] += n[z + l] * y;
          if (bits != 0)
            for (std::size_t j = 0; j < 3; ++j) dc[j][l] += w[j][z + l] * x, ds[j][l] += w[j][z + l] * y;
          pr[z + l] = x * rr[z + l] - y * ri[z + l];
          pi[z + l] = x * ri[z + l] + y * rr[z + l];
        }
      }
      out.c[k] = (c[0] + c[1]) + (c[2] + c[3]), out.s[k] = (sn[0] + sn[1]) + (sn[2] + sn[3]);
      const double t = static_cast<double>(k) * g.dt;
      for (std::size_t j = 0; j < 3; ++j)
        if (bits & (1u << j)) {
          out.dc[j][k] = -t * ((ds[j][0] + ds[j][1]) + (ds[j][2] + ds[j][3]));
          out.ds[j][k] = t * ((dc[j][0] + dc[j][1]) + (dc[j][2] + dc[j][3]));
        }
    }
  }
  return out;
}

void check_point(double field, double lambda, double dead) {
  if (!(lambda > 0.0 && std::isfinite(lambda)))
    throw InputError(std::string(kName) + ": lambda_L " + std::to_string(lambda) + " nm is not positive");
  if (!std::isfinite(field)) throw InputError(std::string(kName) + ": the field " + std::to_string(field) + " G is not finite");
  if (!std::isfinite(dead)) throw InputError(std::string(kName) + ": the dead layer " + std::to_string(dead) + " nm is not finite");
}

Pair build(const PippardSettings& st, double field, double lambda, double dead, unsigned bits) {
  check_point(field, lambda, dead);
  return sums(terms(st, pippard_field(st, lambda, bits & 2u), field, dead), grid_for(field), bits);
}

std::shared_ptr<const Pair> cached(int id, double field, double lambda, double dead, unsigned bits) {
  static RecentBuilds<std::tuple<int, double, double, double>, Pair> recent;
  return recent.get(std::make_tuple(id, field, lambda, dead), bits,
                    [&](unsigned b) { return build(*settings_of(id), field, lambda, dead, b); });
}

// <fourier_points> of the startup file (the library's default 262144 when absent).
int fourier_points(std::string_view text, const std::string& where) {
  const std::string_view open = "<fourier_points>", close = "</fourier_points>";
  const auto b = text.find(open);
  if (b == std::string_view::npos) return 262144;
  const auto e = text.find(close, b);
  if (e == std::string_view::npos) throw InputError(where + ": <fourier_points> is not closed");
  auto body = text.substr(b + open.size(), e - b - open.size());
  while (!body.empty() && std::isspace(static_cast<unsigned char>(body.front()))) body.remove_prefix(1);
  while (!body.empty() && std::isspace(static_cast<unsigned char>(body.back()))) body.remove_suffix(1);
  long long v = 0;
  bool digits = !body.empty() && body.size() <= 9;
  for (char ch : body) digits = digits && ch >= '0' && ch <= '9';
  if (digits) v = std::stoll(std::string(body));
  if (!digits || v < kPippardMinPoints || v > kPippardMaxPoints)
    throw InputError(where + ": <fourier_points> '" + quoted_excerpt(body) + "' is not a whole number in [64, 16777216]");
  return static_cast<int>(v);
}

}  // namespace

KtTable pippard_kind_table(int kind, double a0, double a1, double a2, unsigned differences) {
  const int k = kind - kPippardKind;
  if (k < 0 || kind >= kPippardKindEnd) throw Error("musr: table kind " + std::to_string(kind) + " is not PNL_PippardFitter's");
  const auto p = cached(k / 2, a0, a1, a2, differences & 7u);
  const bool sine = k % 2 == 1;
  KtTable t;
  t.dt = p->grid.dt;
  t.v = sine ? p->s : p->c;
  t.differences = differences;
  for (std::size_t j = 0; j < 3; ++j) {
    if (differences & (1u << j)) t.dv[j] = sine ? p->ds[j] : p->dc[j];
    else t.dv[j].assign(t.v.size(), 0.0);
  }
  return t;
}

namespace {

// A folded argument: known while the program is built, finite.
double known(ProgramBuilder& b, std::int32_t node, int index, const char* what) {
  const auto v = b.known_value(node);
  if (!v || !std::isfinite(*v))
    throw InputError(std::string(kName) + ": the " + what + " (argument " + std::to_string(index) +
                     ") must be a fixed parameter (step 0, released by no COMMANDS) or a constant: its P(t) is a table of "
                     "the field, lambda_L and the dead layer");
  return *v;
}

}  // namespace

std::shared_ptr<const UserFunction> pippard_function(const std::filesystem::path& startup) {
  const std::string text = io::input_file_bytes(startup, kRgeStartupMaxBytes, "nonlocal startup file");
  const int points = fourier_points(text, startup.string());
  const auto profiles = std::make_shared<const std::vector<RgeProfile>>(read_rge_profiles(startup));
  const std::string where = startup.string();
  auto f = std::make_shared<UserFunction>();
  f->name = kName;
  f->where = "built-in user function PNL_PippardFitter (" + where + ")";
  f->params = {"energy", "temperature", "thickness", "mean_free_path", "xi0", "lambda_L", "field", "phase", "dead_layer", "exponent"};
  f->arity = [](std::size_t n) {
    if (n == 9 || n == 10) return std::string();
    return "takes 9 or 10 arguments, got " + std::to_string(n);
  };
  f->native = [points, profiles, where](ProgramBuilder& b, std::span<const std::int32_t> args, std::int32_t t) {
    auto s = std::make_shared<PippardSettings>();
    s->fourier_points = points;
    s->where = where;
    const double energy = known(b, args[0], 1, "energy");
    s->temperature = known(b, args[1], 2, "reduced temperature");
    s->thickness = known(b, args[2], 3, "film thickness");
    s->mean_free_path = known(b, args[3], 4, "mean free path");
    s->xi0 = known(b, args[4], 5, "coherence length xi0");
    if (args.size() == 10) s->exponent = known(b, args[9], 10, "temperature exponent");
    // The library's energy lookup: the first profile, in the file's order, within 0.9 keV.
    const RgeProfile* profile = nullptr;
    for (const auto& p : *profiles)
      if (std::fabs(p.energy_ev - energy) * 0.001 < 0.9) {
        profile = &p;
        break;
      }
    if (!profile) {
      std::ostringstream os;
      for (std::size_t i = 0; i < profiles->size(); ++i) os << (i ? ", " : "") << (*profiles)[i].energy_ev;
      throw InputError(std::string(kName) + ": no TRIM.SP profile within 900 eV of the energy " + std::to_string(energy) + " eV in " + where +
                       " (energies: " + os.str() + " eV)");
    }
    if (!(s->temperature > 0.0 && s->temperature < 1.0))
      throw InputError(std::string(kName) + ": the reduced temperature " + std::to_string(s->temperature) + " is not in (0, 1)");
    if (!(s->thickness > 0.0 && s->mean_free_path > 0.0 && s->xi0 > 0.0))
      throw InputError(std::string(kName) + ": the film thickness, mean free path and xi0 must be positive (got " + std::to_string(s->thickness) +
                       ", " + std::to_string(s->mean_free_path) + ", " + std::to_string(s->xi0) + " nm)");
    if (!(s->exponent > 0.0))
      throw InputError(std::string(kName) + ": the temperature exponent " + std::to_string(s->exponent) + " is not positive");
    s->depth_nm = profile->depth_nm;
    s->density = profile->density;
    const int id = register_settings(std::move(s));
    const auto c = b.table(kPippardKind + 2 * id, t, args[6], args[5], args[8]);
    const auto sn = b.table(kPippardKind + 2 * id + 1, t, args[6], args[5], args[8]);
    const auto phi = b.mul(args[7], b.constant(kDegree));
    const auto p = b.sub(b.mul(b.unary(OpCode::cos, phi), c), b.mul(b.unary(OpCode::sin, phi), sn));
    return b.select(b.unary(OpCode::neg, t), b.constant(1.0), p);  // 1 for t ≤ 0
  };
  return f;
}

}  // namespace tomo::musr::bmw
