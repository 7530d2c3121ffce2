// libFitPofB's TBulkTriVortexML (compute/musr/bmw/tri_vortex_ml.hpp).
#include "compute/musr/bmw/tri_vortex_ml.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <list>
#include <mutex>
#include <tuple>

#include "compute/core/error.hpp"
#include "compute/core/fftw_planner.hpp"
#include "compute/io/input_file.hpp"
#include "compute/musr/bmw/startup.hpp"
#include "compute/musr/bmw/vortex_lattice.hpp"
#include "compute/musr/expression.hpp"
#include "compute/musr/user_fcn.hpp"

namespace tomo::musr::bmw {
namespace {

constexpr int kMaxSettings = 64;

struct Settings {
  std::mutex mutex;
  std::vector<VortexTableSettings> sets;
};
Settings& settings() {
  static Settings s;
  return s;
}

VortexTableSettings settings_of(int id) {
  Settings& s = settings();
  std::lock_guard lock(s.mutex);
  if (id < 0 || id >= static_cast<int>(s.sets.size())) throw Error("musr: no vortex-lattice settings " + std::to_string(id));
  return s.sets[static_cast<std::size_t>(id)];
}

// M: the P(B) and FFT length of the library, 1/(γ̄ Δt ΔB) rounded down, then up to the next even.
std::size_t pb_size(const VortexTableSettings& s) {
  auto m = static_cast<std::size_t>(1.0 / (kFitPofBGammaBar * s.delta_t * s.delta_b));
  return m % 2 ? m + 1 : m + 2;
}

struct Pair {
  std::vector<double> c, s;
};

// C and S at one point: the lattice, its quarter's histogram, one real FFT.
Pair build(const VortexTableSettings& st, double field, double lambda, double xi) {
  VortexLatticeParams p{.model = VortexModel::modified_london, .field = std::fabs(field), .lambda = std::fabs(lambda),
                        .xi = std::fabs(xi), .grid = st.grid};
  if (p.field == 0.0 || p.lambda == 0.0 || p.xi == 0.0)
    throw InputError("TBulkTriVortexML: field, lambda and xi must be non-zero (got " + std::to_string(field) + ", " +
                     std::to_string(lambda) + ", " + std::to_string(xi) + ")");
  const std::vector<double> b = triangular_vortex_field(p);
  const std::size_t m = pb_size(st);
  const auto n = static_cast<std::size_t>(st.grid), half = n / 2;
  double* in = fftw_alloc_real(m);
  fftw_complex* out = fftw_alloc_complex(m / 2 + 1);
  if (!in || !out) {
    fftw_free(in), fftw_free(out);
    throw Error("TBulkTriVortexML: out of memory for a P(B) of " + std::to_string(m) + " bins");
  }
  std::fill(in, in + m, 0.0);
  const double w = 1.0 / static_cast<double>(half * half);
  for (std::size_t row = 0; row < half; ++row)
    for (std::size_t col = 0; col < half; ++col) {
      const double k = std::ceil(std::fabs(b[row * n + col]) / st.delta_b);
      if (k < static_cast<double>(m)) in[static_cast<std::size_t>(k)] += w;
    }
  fftw_plan plan = nullptr;
  {
    std::lock_guard lock(tomo::fftw_planner_mutex());
    plan = fftw_plan_dft_r2c_1d(static_cast<int>(m), in, out, FFTW_ESTIMATE);
  }
  Pair r;
  if (plan) {
    fftw_execute(plan);
    r.c.resize(m / 2 + 1), r.s.resize(m / 2 + 1);
    for (std::size_t i = 0; i <= m / 2; ++i) r.c[i] = out[i][0], r.s[i] = out[i][1];
    std::lock_guard lock(tomo::fftw_planner_mutex());
    fftw_destroy_plan(plan);
  }
  fftw_free(in), fftw_free(out);
  if (!plan) throw Error("TBulkTriVortexML: FFTW could not plan a transform of " + std::to_string(m));
  return r;
}

// The last few (C, S) pairs: the C and S tables of one point, and a gradient's shifted points,
// come from one lattice each.
std::shared_ptr<const Pair> cached(int id, double field, double lambda, double xi) {
  static std::mutex mutex;
  static std::list<std::pair<std::tuple<int, double, double, double>, std::shared_ptr<const Pair>>> cache;
  const auto key = std::make_tuple(id, field, lambda, xi);
  std::lock_guard lock(mutex);
  for (auto it = cache.begin(); it != cache.end(); ++it)
    if (it->first == key) {
      cache.splice(cache.begin(), cache, it);
      return cache.front().second;
    }
  auto p = std::make_shared<const Pair>(build(settings_of(id), field, lambda, xi));
  cache.emplace_front(key, p);
  if (cache.size() > 16) cache.pop_back();
  return p;
}

}  // namespace

int register_vortex_settings(const VortexTableSettings& s) {
  Settings& r = settings();
  std::lock_guard lock(r.mutex);
  for (std::size_t i = 0; i < r.sets.size(); ++i)
    if (r.sets[i] == s) return static_cast<int>(i);
  if (static_cast<int>(r.sets.size()) >= kMaxSettings) throw InputError("musr: more than 64 different vortex-lattice settings in one process");
  r.sets.push_back(s);
  return static_cast<int>(r.sets.size() - 1);
}

KtTable tri_vortex_ml_table(int id, int part, double field, double lambda, double xi, unsigned differences) {
  const VortexTableSettings st = settings_of(id);
  const std::size_t m = pb_size(st);
  auto pick = [&](const Pair& p) -> const std::vector<double>& { return part == 0 ? p.c : p.s; };
  KtTable t;
  t.dt = 1.0 / (kFitPofBGammaBar * static_cast<double>(m - 1) * st.delta_b);
  t.v = pick(*cached(id, field, lambda, xi));
  t.differences = differences;
  const double a[3] = {field, lambda, xi};
  for (int j = 0; j < 3; ++j) {
    t.dv[j].assign(t.v.size(), 0.0);
    if (!(differences & (1u << j))) continue;
    // The histogram moves in steps: a difference over 10⁻³ of the argument averages many of them.
    const double h = 1e-3 * std::max(std::fabs(a[j]), 1e-3);
    double up[3] = {a[0], a[1], a[2]}, dn[3] = {a[0], a[1], a[2]};
    up[j] += h, dn[j] -= h;
    const auto pu = cached(id, up[0], up[1], up[2]), pd = cached(id, dn[0], dn[1], dn[2]);
    const auto &vu = pick(*pu), &vd = pick(*pd);
    for (std::size_t i = 0; i < t.v.size(); ++i) t.dv[j][i] = (vu[i] - vd[i]) / (2.0 * h);
  }
  return t;
}

int vortex_table_kind(int id, int part) { return static_cast<int>(TableKind::vortex_lattice) + 2 * id + part; }

KtTable vortex_kind_table(int kind, double a0, double a1, double a2, unsigned differences) {
  const int k = kind - static_cast<int>(TableKind::vortex_lattice);
  return tri_vortex_ml_table(k / 2, k % 2, a0, a1, a2, differences);
}

std::shared_ptr<const UserFunction> tri_vortex_ml_function(const std::filesystem::path& startup) {
  const BmwStartup s = parse_bmw_startup(io::input_file_bytes(startup, kBmwStartupMaxBytes, "BMW startup file"), startup.string());
  if (s.vortex_grid == 0) throw InputError(startup.string() + ": TBulkTriVortexML needs <N_VortexGrid>");
  const int id = register_vortex_settings({.delta_t = s.delta_t, .delta_b = s.delta_b, .grid = s.vortex_grid});
  auto f = std::make_shared<UserFunction>();
  f->name = "TBulkTriVortexML";
  f->where = "built-in user function TBulkTriVortexML (" + startup.string() + ")";
  f->params = {"phase", "field", "lambda", "xi"};
  f->native = [id](ProgramBuilder& b, std::span<const std::int32_t> args, std::int32_t t) {
    const auto phi = b.mul(args[0], b.constant(kPi / 180.0));
    const auto c = b.table(vortex_table_kind(id, 0), t, args[1], args[2], args[3]);
    const auto s = b.table(vortex_table_kind(id, 1), t, args[1], args[2], args[3]);
    const auto cphi = b.unary(OpCode::cos, phi);
    const auto p = b.add(b.mul(cphi, c), b.mul(b.unary(OpCode::sin, phi), s));
    return b.select(t, p, cphi);  // the library gives cos φ before t = 0
  };
  return f;
}

}  // namespace tomo::musr::bmw
