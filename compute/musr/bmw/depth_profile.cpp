// musrfit's PDepthProfile as a native built-in (compute/musr/bmw/depth_profile.hpp).
#include "compute/musr/bmw/depth_profile.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "compute/core/error.hpp"
#include "compute/musr/expression.hpp"
#include "compute/musr/user_fcn.hpp"

namespace tomo::musr {
namespace {

// Loaded sets live for the process (tables name them by index); identical contents share one.
// The cap bounds the memory of a process that reads many different startup files.
constexpr std::size_t kMaxSets = 256;

struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<const std::vector<RgeProfile>>> sets;
};
Registry& registry() {
  static Registry r;
  return r;
}

// Cell j of the staircase is (z_{j−1}, z_j] (z_{−1} = 0); its midpoint carries cfd_j.
double midpoint(const RgeProfile& p, std::size_t j) {
  const double lo = j == 0 ? 0.0 : p.depth_nm[j - 1];
  return 0.5 * (lo + p.depth_nm[j]);
}

// The segment [m_j, m_{j+1}) holding z, or npos outside [m_0, m_last).
std::size_t segment(const RgeProfile& p, double z) {
  const std::size_t n = p.depth_nm.size();
  if (!(z >= midpoint(p, 0)) || !(z < midpoint(p, n - 1))) return static_cast<std::size_t>(-1);
  // The first depth ≥ z is cell j's upper end; z lies left or right of that cell's midpoint.
  std::size_t j = static_cast<std::size_t>(std::lower_bound(p.depth_nm.begin(), p.depth_nm.end(), z) - p.depth_nm.begin());
  if (j >= n) j = n - 1;
  if (z < midpoint(p, j)) --j;
  return j;
}

// The profile musrfit uses at energy e (eV): the first within 900 eV; nullptr when none.
const RgeProfile* profile_at(const std::vector<RgeProfile>& set, long long e_ev) {
  for (const auto& p : set)
    if (std::llabs(static_cast<long long>(p.energy_ev) - e_ev) < 900) return &p;
  return nullptr;
}

}  // namespace

int register_depth_profiles(std::vector<RgeProfile> profiles) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (std::size_t i = 0; i < r.sets.size(); ++i)
    if (*r.sets[i] == profiles) return static_cast<int>(i);
  if (r.sets.size() >= kMaxSets) throw InputError("musr: more than 256 different depth-profile sets in one process");
  r.sets.push_back(std::make_unique<const std::vector<RgeProfile>>(std::move(profiles)));
  return static_cast<int>(r.sets.size() - 1);
}

const std::vector<RgeProfile>& depth_profiles(int id) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (id < 0 || static_cast<std::size_t>(id) >= r.sets.size()) throw Error("musr: no depth-profile set " + std::to_string(id));
  return *r.sets[static_cast<std::size_t>(id)];
}

namespace {

// Secant of segment j, [m_j, m_{j+1}], and its width.
double width(const RgeProfile& p, std::size_t j) { return midpoint(p, j + 1) - midpoint(p, j); }
double secant(const RgeProfile& p, std::size_t j) { return (p.cfd[j + 1] - p.cfd[j]) / width(p, j); }
int sign(double x) { return (x > 0.0) - (x < 0.0); }

// The monotone cubic's slope at node j (Fritsch–Carlson with Brodlie's weights, as SciPy's
// PchipInterpolator): the weighted harmonic mean of the two secants, 0 where they differ in sign
// or one is 0; at the ends the three-point one-sided estimate kept to the end secant's sign and
// to 3× it where the secants differ in sign. C never overshoots its data, so it stays monotone.
double node_slope(const RgeProfile& p, std::size_t j) {
  const std::size_t n = p.depth_nm.size();
  if (n == 2) return secant(p, 0);
  if (j == 0 || j == n - 1) {
    const std::size_t k0 = j == 0 ? 0 : n - 2, k1 = j == 0 ? 1 : n - 3;
    const double h0 = width(p, k0), h1 = width(p, k1), d0 = secant(p, k0), d1 = secant(p, k1);
    const double s = ((2.0 * h0 + h1) * d0 - h0 * d1) / (h0 + h1);
    if (sign(s) != sign(d0)) return 0.0;
    if (sign(d0) != sign(d1) && std::fabs(s) > 3.0 * std::fabs(d0)) return 3.0 * d0;
    return s;
  }
  const double hl = width(p, j - 1), hr = width(p, j), dl = secant(p, j - 1), dr = secant(p, j);
  if (sign(dl) != sign(dr) || dl == 0.0 || dr == 0.0) return 0.0;
  const double w1 = 2.0 * hr + hl, w2 = hr + 2.0 * hl;
  return (w1 + w2) / (w1 / dl + w2 / dr);
}

// C and dC/dz on segment j at z (cubic Hermite through the segment's nodes and slopes).
void hermite(const RgeProfile& p, std::size_t j, double z, double& c, double& dc) {
  const double h = width(p, j), t = (z - midpoint(p, j)) / h;
  const double c0 = p.cfd[j], c1 = p.cfd[j + 1], s0 = node_slope(p, j) * h, s1 = node_slope(p, j + 1) * h;
  const double t2 = t * t, t3 = t2 * t;
  c = (2 * t3 - 3 * t2 + 1) * c0 + (t3 - 2 * t2 + t) * s0 + (-2 * t3 + 3 * t2) * c1 + (t3 - t2) * s1;
  dc = ((6 * t2 - 6 * t) * (c0 - c1) + (3 * t2 - 4 * t + 1) * s0 + (3 * t2 - 2 * t) * s1) / h;
}

}  // namespace

double depth_cumulative(const RgeProfile& p, double z) {
  const std::size_t n = p.depth_nm.size();
  if (!(z >= midpoint(p, 0))) return p.cfd.front();
  const std::size_t j = segment(p, z);
  if (j == static_cast<std::size_t>(-1)) return p.cfd[n - 1];
  double c = 0.0, dc = 0.0;
  hermite(p, j, z, c, dc);
  return c;
}

double depth_density(const RgeProfile& p, double z) {
  const std::size_t j = segment(p, z);
  if (j == static_cast<std::size_t>(-1)) return 0.0;
  double c = 0.0, dc = 0.0;
  hermite(p, j, z, c, dc);
  return dc;
}

KtTable depth_fraction_table(double a, double b, double id, unsigned differences) {
  const auto& set = depth_profiles(static_cast<int>(id));
  int emax = 0;
  for (const auto& p : set) emax = std::max(emax, p.energy_ev);
  // Grid points i at E = 10·i eV, up to the last window's end and one 0 beyond it.
  const auto n = static_cast<std::size_t>((emax + 900) / 10 + 2);
  KtTable t;
  t.dt = kDepthTableStepKeV;
  t.v.assign(n, 0.0);
  const bool grad = differences != 0;
  if (grad) t.dv[0].assign(n, 0.0), t.dv[1].assign(n, 0.0), t.dv[2].assign(n, 0.0);
  t.differences = differences;
  // P and its derivatives once per profile, then spread over the profile's window.
  for (std::size_t i = 0; i < n; ++i) {
    const RgeProfile* p = profile_at(set, 10LL * static_cast<long long>(i));
    if (!p) continue;
    t.v[i] = depth_cumulative(*p, b) - depth_cumulative(*p, a);
    if (grad) t.dv[0][i] = -depth_density(*p, a), t.dv[1][i] = depth_density(*p, b);
  }
  return t;
}

std::shared_ptr<const UserFunction> depth_profile_function(const std::filesystem::path& startup) {
  const int id = register_depth_profiles(read_rge_profiles(startup));
  auto f = std::make_shared<UserFunction>();
  f->name = "PDepthProfile";
  f->where = "built-in user function PDepthProfile (" + startup.string() + ")";
  f->params = {"f1", "f2", "x1"};
  f->arity = [](std::size_t n) -> std::string {
    if (n >= 3 && n % 2 == 1) return {};
    return "takes 2n − 1 arguments (f1 … fn, x1 … x_{n−1}; n ≥ 2), got " + std::to_string(n);
  };
  f->native = [id](ProgramBuilder& b, std::span<const std::int32_t> args, std::int32_t t) {
    const std::size_t n = (args.size() + 1) / 2;  // layers: fractions f1 … fn, boundaries x1 … x_{n−1}
    const auto set = b.constant(static_cast<double>(id));
    // Layer k spans [x_k, x_{k+1}] with x_0 = 0 (musrfit's cfd at the first depth) and
    // x_n = ∞ (its last depth).
    auto edge = [&](std::size_t k) { return k == 0 ? b.constant(0.0) : k == n ? b.constant(1e300) : args[n + k - 1]; };
    std::int32_t sum = -1;
    for (std::size_t k = 0; k < n; ++k) {
      const auto layer = b.mul(args[k], b.table(static_cast<int>(TableKind::depth_fraction), t, edge(k), edge(k + 1), set));
      sum = sum < 0 ? layer : b.add(sum, layer);
    }
    return sum;
  };
  return f;
}

}  // namespace tomo::musr
