// libCalcMeanFieldsLEM's TMeanFieldsForScSingleLayer (compute/musr/bmw/mean_fields.hpp).
#include "compute/musr/bmw/mean_fields.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <mutex>

#include "compute/core/error.hpp"
#include "compute/musr/bmw/trim_sp_data.hpp"
#include "compute/musr/expression.hpp"
#include "compute/musr/user_fcn.hpp"

namespace tomo::musr::bmw {
namespace {

constexpr std::size_t kMaxSets = 64;

struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<const std::vector<LemProfile>>> sets;
};
Registry& registry() {
  static Registry r;
  return r;
}

// The rows of each layer as the library's WeightLayers assigns them, walking the rows once:
// layer 0 up to the first row at or beyond 10·i0 Å, which opens layer 1; layer 2 from the next
// row on at or beyond 10·i1 (so a row past both interfaces at once still belongs to layer 1).
double layer_sum(const LemProfile& p, double i0, double i1, int layer) {
  double s = 0.0;
  int k = 0;
  for (std::size_t j = 0; j < p.depth_a.size(); ++j) {
    const double iface = k == 0 ? i0 : i1;
    if (k < 2 && !(p.depth_a[j] < iface * 10.0)) ++k;
    if (k == layer) s += p.n[j];
  }
  return s;
}

}  // namespace

std::vector<LemProfile> load_lem_profiles(const std::filesystem::path& startup) {
  // libCalcMeanFieldsLEM reads its profiles with libFitPofB's TTrimSPData: the same reader, the
  // counts normalised to stopping fractions (the zeros it appends up to 2100 Å weigh nothing).
  std::vector<LemProfile> out;
  for (auto& r : load_trim_sp_profiles(startup)) {
    double total = 0.0;
    for (double v : r.counts) total += v;
    if (!(total > 0.0)) throw InputError(startup.string() + ": the TRIM.SP profile of " + std::to_string(r.energy_kev) + " keV holds no particles");
    LemProfile p;
    p.energy_kev = r.energy_kev;
    p.depth_a = std::move(r.depth_a);
    for (double v : r.counts) p.n.push_back(v / total);
    out.push_back(std::move(p));
  }
  return out;
}

int register_lem_profiles(std::vector<LemProfile> set) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (std::size_t i = 0; i < r.sets.size(); ++i)
    if (*r.sets[i] == set) return static_cast<int>(i);
  if (r.sets.size() >= kMaxSets) throw InputError("musr: more than 64 different LEM profile sets in one process");
  r.sets.push_back(std::make_unique<const std::vector<LemProfile>>(std::move(set)));
  return static_cast<int>(r.sets.size() - 1);
}

const std::vector<LemProfile>& lem_profiles(int id) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (id < 0 || static_cast<std::size_t>(id) >= r.sets.size()) throw Error("musr: no LEM profile set " + std::to_string(id));
  return *r.sets[static_cast<std::size_t>(id)];
}

double london_film_field(double z, double d, double t, double lambda, double (*grad)[3]) {
  if (grad) (*grad)[0] = (*grad)[1] = (*grad)[2] = 0.0;
  // TLondon1D_1L: the range and the exponents in z use the clamped values, the coefficients the given ones.
  const double dc = std::max(d, 0.0), tc = std::max(t, 0.0), lc = lambda < 0.1 ? 0.1 : lambda;
  if (z < 0.0 || z < dc || z > dc + tc) return 1.0;
  const double q = 1.0 + std::exp(t / lambda);
  const double a = std::exp((d + t) / lambda - z / lc), b = std::exp(-d / lambda + z / lc);
  const double v = (a + b) / q;
  if (grad) {
    // The derivatives of the unclamped form (d, t ≥ 0, λ ≥ 0.1 nm).
    const double e = std::exp(t / lambda), l2 = lambda * lambda;
    (*grad)[0] = (a - b) / (lambda * q);
    (*grad)[1] = a / (lambda * q) - v * e / (lambda * q);
    (*grad)[2] = (-a * (d + t - z) - b * (z - d)) / (l2 * q) + v * e * t / (l2 * q);
  }
  return v;
}

double london_half_space_field(double z, double d, double lambda, double (*grad)[2]) {
  if (grad) (*grad)[0] = (*grad)[1] = 0.0;
  if (z < 0.0 || z < d) return 1.0;
  const double v = std::exp((d - z) / lambda);
  if (grad) (*grad)[0] = v / lambda, (*grad)[1] = v * (z - d) / (lambda * lambda);
  return v;
}

KtTable mean_field_kind_table(int kind, double a0, double a1, double a2, unsigned differences) {
  const int k = kind - kMeanFieldKind;
  const auto& set = lem_profiles(k / 4);
  const int part = k % 4;
  KtTable t;
  t.dt = 1.0;
  t.v.assign(set.size(), 0.0);
  t.differences = differences;
  for (auto& dv : t.dv) dv.assign(set.size(), 0.0);
  for (std::size_t i = 0; i < set.size(); ++i) {
    const LemProfile& p = set[i];
    if (part == 0) {
      // The layer's stopping fraction: a staircase in the interfaces, so no derivative.
      t.v[i] = layer_sum(p, a0, a1, static_cast<int>(a2));
      continue;
    }
    double h = 0.0, g[3] = {0.0, 0.0, 0.0};
    for (std::size_t j = 0; j < p.depth_a.size(); ++j) {
      if (p.n[j] == 0.0) continue;
      double gj[3] = {0.0, 0.0, 0.0};
      if (part == 1) {
        h += p.n[j] * (london_film_field(0.1 * p.depth_a[j], a0, a1, a2, differences ? &gj : nullptr) - 1.0);
      } else {
        double g2[2];
        h += p.n[j] * (london_half_space_field(p.depth_a[j] / 10.0, a0, a1, &g2) - 1.0);
        gj[0] = g2[0], gj[1] = g2[1];
      }
      if (differences)
        for (int m = 0; m < 3; ++m) g[m] += p.n[j] * gj[m];
    }
    t.v[i] = h;
    for (int m = 0; m < 3; ++m)
      if (differences & (1u << m)) t.dv[static_cast<std::size_t>(m)][i] = g[m];
  }
  return t;
}

namespace {

// The library's energy rule over the profile means: the first profile's mean below it, the
// last's above, linear between two. The position among the profiles is arithmetic on e alone
// (lo, hi = the two profiles, frac = where e lies between them), so each mean is read from the
// tables at two positions: a handful of table reads a bin, whatever the number of profiles (a GPU
// kernel's compile time grows with every table read it holds).
std::int32_t energy_rule(ProgramBuilder& b, std::int32_t e, const std::vector<double>& energies,
                         const std::function<std::int32_t(std::int32_t)>& mean_at) {
  const std::size_t n = energies.size();
  const auto per_x = b.mul(b.constant(0.0), e);  // a node of e, for positions read per x
  std::int32_t lo = b.add(b.constant(static_cast<double>(n - 1)), per_x), frac = per_x;
  for (std::size_t k = n - 1; k >= 1; --k) {
    const double e1 = energies[k - 1], e2 = energies[k];
    const auto f = b.div(b.sub(e, b.constant(e1)), b.constant(e2 - e1));
    const auto above = b.sub(e, b.constant(e2));
    lo = b.select(above, lo, b.add(b.constant(static_cast<double>(k - 1)), per_x));
    frac = b.select(above, frac, f);
  }
  const auto below = b.sub(e, b.constant(energies[0]));
  lo = b.select(below, lo, per_x);
  frac = b.select(below, frac, per_x);
  if (n == 1) return mean_at(lo);
  const auto hi = b.add(lo, b.select(b.sub(e, b.constant(energies[n - 1])), per_x, b.constant(1.0)));
  const auto m_lo = mean_at(lo), m_hi = mean_at(hi);
  return b.add(m_lo, b.mul(b.sub(m_hi, m_lo), frac));
}

std::vector<double> energies_of(int id) {
  std::vector<double> out;
  for (const auto& p : lem_profiles(id)) out.push_back(p.energy_kev);
  return out;
}

}  // namespace

std::shared_ptr<const UserFunction> mean_fields_half_space_function(const std::filesystem::path& startup) {
  const int id = register_lem_profiles(load_lem_profiles(startup));
  const std::vector<double> energies = energies_of(id);
  auto f = std::make_shared<UserFunction>();
  f->name = "TMeanFieldsForScHalfSpace";
  f->where = "built-in user function TMeanFieldsForScHalfSpace (" + startup.string() + ")";
  f->params = {"field", "deadlayer", "lambda"};
  f->native = [id, energies](ProgramBuilder& b, std::span<const std::int32_t> args, std::int32_t e) {
    // ⟨B⟩ at profile `at` (a table's position is the profile's index).
    const auto mean_at = [&](std::int32_t at) {
      const auto h = b.table(kMeanFieldKind + 4 * id + 2, at, args[1], args[2], b.constant(0.0));
      return b.mul(args[0], b.add(b.constant(1.0), h));
    };
    return energy_rule(b, e, energies, mean_at);
  };
  return f;
}

std::shared_ptr<const UserFunction> mean_fields_single_layer_function(const std::filesystem::path& startup) {
  const int id = register_lem_profiles(load_lem_profiles(startup));
  const std::vector<double> energies = energies_of(id);
  auto f = std::make_shared<UserFunction>();
  f->name = "TMeanFieldsForScSingleLayer";
  f->where = "built-in user function TMeanFieldsForScSingleLayer (" + startup.string() + ")";
  f->params = {"field", "deadlayer", "thickness", "lambda", "weight1", "weight2", "weight3"};
  f->native = [id, energies](ProgramBuilder& b, std::span<const std::int32_t> args, std::int32_t e) {
    const auto b0 = args[0], d = args[1], thick = args[2], lambda = args[3];
    const auto d_end = b.add(d, thick);
    const int layers = kMeanFieldKind + 4 * id, film = layers + 1;
    // ⟨B⟩_k = B0·(1 + w2·H_k / Σ w L_k) at profile k = `at` (a table's position is the profile's index).
    const auto mean_at = [&](std::int32_t at) {
      std::int32_t den = -1;
      for (int layer = 0; layer < 3; ++layer) {
        const auto l = b.mul(args[4 + static_cast<std::size_t>(layer)], b.table(layers, at, d, d_end, b.constant(layer)));
        den = den < 0 ? l : b.add(den, l);
      }
      const auto h = b.table(film, at, d, thick, lambda);
      return b.mul(b0, b.add(b.constant(1.0), b.div(b.mul(args[5], h), den)));
    };
    return energy_rule(b, e, energies, mean_at);
  };
  return f;
}

}  // namespace tomo::musr::bmw
