// libFitPofB's TLondon1DHS (compute/musr/bmw/london_hs_function.hpp).
#include "compute/musr/bmw/london_hs_function.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <list>
#include <mutex>
#include <optional>
#include <sstream>
#include <tuple>

#include "compute/core/error.hpp"
#include "compute/io/input_file.hpp"
#include "compute/musr/bmw/field_distribution.hpp"
#include "compute/musr/bmw/recent_builds.hpp"
#include "compute/musr/bmw/startup.hpp"
#include "compute/musr/expression.hpp"
#include "compute/musr/user_fcn.hpp"

namespace tomo::musr::bmw {
namespace {

constexpr int kMaxSets = 64;
constexpr double kDeadLayerWidth = 0.005;  // µs⁻¹: the library's width of the dead layer's line
constexpr double kEnergyWindow = 0.05;     // keV: the library's tolerance in picking a profile
constexpr double kDegree = 0.017453293;    // the library's degree before t = 0

// One startup file's settings and profiles.
struct LondonSet {
  double delta_t = 0.0, delta_b = 0.0;
  std::vector<TrimSpProfile> profiles;  // ascending energy
  std::string where;                    // the startup file, for messages
  std::string name = "TLondon1DHS";     // the function, for messages
  bool film = false;                    // TLondon1D1L: a film of `thickness` [nm], else the half-space
  double thickness = 0.0;
  // TLondon1D2L, 3L, 3LS (2, 3, 4): the profile's arguments (B₀, d, t₁, t₂, t₃, λ₁, λ₂, λ₃), the
  // folded ones in `known`, the table's three (a0, a1, a2) at the indices `slot`.
  int layers = 0;
  std::array<double, 8> known{};
  std::array<int, 3> slot{};
  bool same(const LondonSet& o) const {
    return delta_t == o.delta_t && delta_b == o.delta_b && film == o.film && thickness == o.thickness && name == o.name &&
           layers == o.layers && known == o.known && slot == o.slot && profiles == o.profiles;
  }
};

struct Sets {
  std::mutex mutex;
  std::vector<std::shared_ptr<const LondonSet>> sets;
};
Sets& sets() {
  static Sets s;
  return s;
}

int register_set(std::shared_ptr<const LondonSet> s) {
  Sets& r = sets();
  std::lock_guard lock(r.mutex);
  for (std::size_t i = 0; i < r.sets.size(); ++i)
    if (r.sets[i]->same(*s)) return static_cast<int>(i);
  if (static_cast<int>(r.sets.size()) >= kMaxSets) throw InputError("musr: more than 64 different TLondon1DHS settings in one process");
  r.sets.push_back(std::move(s));
  return static_cast<int>(r.sets.size() - 1);
}

std::shared_ptr<const LondonSet> set_of(int id) {
  Sets& r = sets();
  std::lock_guard lock(r.mutex);
  if (id < 0 || id >= static_cast<int>(r.sets.size())) throw Error("musr: no TLondon1DHS settings " + std::to_string(id));
  return r.sets[static_cast<std::size_t>(id)];
}

std::string energies_of(const LondonSet& s) {
  std::ostringstream os;
  for (std::size_t i = 0; i < s.profiles.size(); ++i) os << (i ? ", " : "") << s.profiles[i].energy_kev;
  return os.str();
}

// The arguments' check (the library would divide by zero or quit).
void check_arguments(const LondonSet& s, double energy, double field, double lambda) {
  const PofBGrid g = pofb_grid(s.delta_t, s.delta_b);
  const double top = static_cast<double>(g.size - 1) * g.delta_b;
  if (!std::isfinite(energy) || find_trim_sp_energy(s.profiles, energy) < 0)
    throw InputError(s.name + ": no TRIM.SP profile within 0.05 keV of the energy " + std::to_string(energy) + " keV in " + s.where +
                     " (energies: " + energies_of(s) + " keV)");
  if (!(field > 0.0 && field < top))
    throw InputError(s.name + ": the field " + std::to_string(field) + " G is outside (0, " + std::to_string(top) +
                     ") G, the P(B) grid of " + s.where);
  if (!(lambda > 0.0 && std::isfinite(lambda)))
    throw InputError(s.name + ": lambda " + std::to_string(lambda) + " nm is not positive");
}

PolarisationParts parts_at(const LondonSet& s, std::size_t k, double field, double dead_layer, double lambda) {
  if (!std::isfinite(dead_layer)) throw InputError(s.name + ": the dead layer " + std::to_string(dead_layer) + " nm is not finite");
  check_arguments(s, s.profiles[k].energy_kev, field, lambda);
  const PofBGrid g = pofb_grid(s.delta_t, s.delta_b);
  const TrimSpProfile& n = s.profiles[k];
  std::vector<double> pb;
  double w = trim_sp_layer_fraction(n, dead_layer);
  if (!s.film) {
    pb = field_distribution(g, LondonHalfSpace(field, dead_layer, lambda), n);
  } else {  // the film: the muons of the dead layer and of the substrate beyond it see B₀
    pb = field_distribution(g, LondonFilm(field, dead_layer, s.thickness, lambda), n);
    w += 1.0 - trim_sp_layer_fraction(n, dead_layer + s.thickness);
  }
  if (w != 0.0) add_background(g, pb, field, kDeadLayerWidth, w);
  return polarisation_parts(g, pb);
}

// The layered films: the profile's arguments with the table's three put in their slots.
PolarisationParts layered_parts_at(const LondonSet& s, std::size_t k, std::array<double, 3> a) {
  std::array<double, 8> v = s.known;
  for (std::size_t j = 0; j < 3; ++j) v[static_cast<std::size_t>(s.slot[j])] = a[j];
  for (double x : v)
    if (!std::isfinite(x)) throw InputError(s.name + ": an argument is not finite");
  const int lambdas = s.layers == 2 ? 2 : s.layers == 3 ? 3 : 2;
  for (int j = 0; j < lambdas; ++j)
    if (!(v[static_cast<std::size_t>(5 + j)] > 0.0))
      throw InputError(s.name + ": lambda" + std::to_string(j + 1) + " " + std::to_string(v[static_cast<std::size_t>(5 + j)]) + " nm is not positive");
  check_arguments(s, s.profiles[k].energy_kev, v[0], v[5]);
  const PofBGrid g = pofb_grid(s.delta_t, s.delta_b);
  const TrimSpProfile& n = s.profiles[k];
  std::vector<double> pb;
  double total = v[2] + v[3];
  if (s.layers == 2) {
    pb = field_distribution(g, LondonBilayer(v[0], v[1], v[2], v[3], v[5], v[6]), n);
  } else if (s.layers == 3) {
    pb = field_distribution(g, LondonTrilayer(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]), n);
    total += v[4];
  } else {
    pb = field_distribution(g, LondonSymmetricTrilayer(v[0], v[1], v[2], v[3], v[4], v[5], v[6]), n);
    total += v[4];
  }
  // The muons of the dead layer and of the substrate beyond the layers see B₀, as the library's.
  const double w = trim_sp_layer_fraction(n, v[1]) + 1.0 - trim_sp_layer_fraction(n, v[1] + total);
  if (w != 0.0) add_background(g, pb, v[0], kDeadLayerWidth, w);
  return polarisation_parts(g, pb);
}

PolarisationParts parts_of(const LondonSet& s, std::size_t k, std::array<double, 3> a) {
  return s.layers >= 2 ? layered_parts_at(s, k, a) : parts_at(s, k, a[0], a[1], a[2]);
}

// C and S of one profile at (B₀, d, λ) and, for each bit j of `bits`, their central differences.
struct Pair {
  PolarisationParts v;
  std::array<PolarisationParts, 3> d;
  unsigned bits = 0;
};

Pair build(const LondonSet& s, std::size_t k, std::array<double, 3> a, unsigned bits) {
  Pair p;
  p.v = parts_of(s, k, a);
  p.bits = bits;
  for (std::size_t j = 0; j < 3; ++j) {
    if (!(bits & (1u << j))) continue;
    const double h = 1e-5 * (a[j] != 0.0 ? std::fabs(a[j]) : 1.0);
    auto up = a, down = a;
    up[j] += h, down[j] -= h;
    const PolarisationParts pu = parts_of(s, k, up), pd = parts_of(s, k, down);
    const double span = up[j] - down[j];
    PolarisationParts& d = p.d[j];
    d.c.resize(pu.c.size()), d.s.resize(pu.s.size());
    for (std::size_t i = 0; i < d.c.size(); ++i) d.c[i] = (pu.c[i] - pd.c[i]) / span, d.s[i] = (pu.s[i] - pd.s[i]) / span;
  }
  return p;
}

// The last few points: the C and S tables of one point come from one P(B).
std::shared_ptr<const Pair> cached(int id, std::size_t k, std::array<double, 3> a, unsigned bits) {
  static RecentBuilds<std::tuple<int, std::size_t, double, double, double>, Pair> recent;
  return recent.get(std::make_tuple(id, k, a[0], a[1], a[2]), bits,
                    [&](unsigned b) { return build(*set_of(id), k, a, b); });
}

// A table that is zero at every t (the unselected profiles and the check).
KtTable zero_table(unsigned differences) {
  KtTable t;
  t.dt = 1.0;
  t.v.assign(2, 0.0);
  t.differences = differences;
  return t;
}

int check_kind(int id) { return kLondonKindBase + id * kLondonKindStride + 2 * kLondonMaxProfiles; }
int part_kind(int id, std::size_t k, int part) { return kLondonKindBase + id * kLondonKindStride + 2 * static_cast<int>(k) + part; }

}  // namespace

KtTable london_kind_table(int kind, double a0, double a1, double a2, unsigned differences) {
  const int k = kind - kLondonKindBase;
  if (k < 0) throw Error("musr: table kind " + std::to_string(kind) + " is not TLondon1DHS's");
  const int id = k / kLondonKindStride, r = k % kLondonKindStride;
  const auto s = set_of(id);
  if (r == 2 * kLondonMaxProfiles) {  // the check: (E, B₀, λ)
    check_arguments(*s, a0, a1, a2);
    return zero_table(differences);
  }
  const auto profile = static_cast<std::size_t>(r / 2);
  if (profile >= s->profiles.size()) throw Error("musr: TLondon1DHS has no profile " + std::to_string(profile));
  if (a0 == 0.0 && a1 == 0.0 && a2 == 0.0) return zero_table(differences);  // not this energy
  const auto p = cached(id, profile, {a0, a1, a2}, differences & 7u);
  const PofBGrid g = pofb_grid(s->delta_t, s->delta_b);
  KtTable t;
  t.dt = g.t_bin;
  t.v = r % 2 ? p->v.s : p->v.c;
  t.differences = differences;
  for (std::size_t j = 0; j < 3; ++j) {
    if (differences & (1u << j)) t.dv[j] = r % 2 ? p->d[j].s : p->d[j].c;
    else t.dv[j].assign(t.v.size(), 0.0);
  }
  return t;
}

namespace {

// P(t) of the set `id` from (phase, E, B₀, d, λ) as nodes: the table of E's profile at (B₀, d, λ).
std::int32_t london_program(ProgramBuilder& b, int id, const std::vector<double>& energies, std::int32_t phase, std::int32_t energy,
                            std::int32_t field, std::int32_t lambda, std::array<std::int32_t, 3> args, std::int32_t t) {
  const auto zero = b.constant(0.0);
  // The check is the branch taken when no energy matches: it throws there.
  const auto check = b.table(check_kind(id), t, energy, field, lambda);
  std::int32_t c = check, s = check;
  const double window = std::nextafter(kEnergyWindow, 0.0);  // |E − e| < 0.05 as |E − e| ≤ this
  // An energy known while building (a constant or a fixed parameter, as every run's energy is
  // in musrfit's examples) selects its profile here: two table nodes instead of two a profile,
  // which keeps the generated GPU kernels small (NVRTC's time grows with every table read a bin).
  std::optional<std::size_t> only;
  if (const auto e = b.known_value(energy))
    for (std::size_t k = 0; k < energies.size(); ++k)
      if (std::fabs(*e - energies[k]) <= window) {
        only = k;
        break;
      }
  for (std::size_t k = energies.size(); k-- > 0;) {
    if (only && k != *only) continue;
    const auto diff = b.sub(energy, b.constant(energies[k]));
    const auto match = b.sub(b.constant(window), b.select(diff, diff, b.unary(OpCode::neg, diff)));
    const auto a0 = b.select(match, args[0], zero), a1 = b.select(match, args[1], zero), a2 = b.select(match, args[2], zero);
    c = b.select(match, b.table(part_kind(id, k, 0), t, a0, a1, a2), c);
    s = b.select(match, b.table(part_kind(id, k, 1), t, a0, a1, a2), s);
  }
  const auto phi = b.mul(phase, b.constant(kPi / 180.0));
  const auto p = b.add(b.mul(b.unary(OpCode::cos, phi), c), b.mul(b.unary(OpCode::sin, phi), s));
  return b.select(t, p, b.unary(OpCode::cos, b.mul(phase, b.constant(kDegree))));
}

std::shared_ptr<LondonSet> read_set(const std::filesystem::path& startup, const std::string& name) {
  const BmwStartup st = parse_bmw_startup(io::input_file_bytes(startup, kBmwStartupMaxBytes, "BMW startup file"), startup.string());
  auto set = std::make_shared<LondonSet>();
  set->delta_t = st.delta_t;
  set->delta_b = st.delta_b;
  set->profiles = load_trim_sp_profiles(startup);
  set->where = startup.string();
  set->name = name;
  if (set->profiles.size() > static_cast<std::size_t>(kLondonMaxProfiles))
    throw InputError(startup.string() + ": " + name + " takes at most 1000 TRIM.SP profiles");
  return set;
}

std::vector<double> energies_list(const LondonSet& s) {
  std::vector<double> energies;
  for (const auto& p : s.profiles) energies.push_back(p.energy_kev);
  return energies;
}

}  // namespace

std::shared_ptr<const UserFunction> london_hs_function(const std::filesystem::path& startup) {
  auto set = read_set(startup, "TLondon1DHS");
  const std::vector<double> energies = energies_list(*set);
  const int id = register_set(std::move(set));
  auto f = std::make_shared<UserFunction>();
  f->name = "TLondon1DHS";
  f->where = "built-in user function TLondon1DHS (" + startup.string() + ")";
  f->params = {"phase", "energy", "field", "deadlayer", "lambda"};
  f->native = [id, energies](ProgramBuilder& b, std::span<const std::int32_t> args, std::int32_t t) {
    return london_program(b, id, energies, args[0], args[1], args[2], args[4], {args[2], args[3], args[4]}, t);
  };
  return f;
}

std::shared_ptr<const UserFunction> london_film_function(const std::filesystem::path& startup) {
  std::shared_ptr<const LondonSet> base = read_set(startup, "TLondon1D1L");
  const std::vector<double> energies = energies_list(*base);
  auto f = std::make_shared<UserFunction>();
  f->name = "TLondon1D1L";
  f->where = "built-in user function TLondon1D1L (" + startup.string() + ")";
  f->params = {"phase", "energy", "field", "deadlayer", "thickness", "lambda"};
  f->arity = [](std::size_t n) {
    if (n == 6) return std::string();
    if (n == 8) return std::string("takes 6 arguments here (the layer weights of its 8-argument form are not provided), got 8");
    return "takes 6 arguments, got " + std::to_string(n);
  };
  f->native = [base, energies](ProgramBuilder& b, std::span<const std::int32_t> args, std::int32_t t) {
    // The thickness is folded into the table's settings, so it must be known while building.
    const auto thickness = b.known_value(args[4]);
    if (!thickness || !std::isfinite(*thickness))
      throw InputError("TLondon1D1L: the layer thickness (argument 5) must be a fixed parameter (step 0, released by no COMMANDS) "
                       "or a constant: its P(t) is a table of the field, the dead layer and lambda");
    auto set = std::make_shared<LondonSet>(*base);
    set->film = true;
    set->thickness = *thickness;
    const int id = register_set(std::move(set));
    return london_program(b, id, energies, args[0], args[1], args[2], args[5], {args[2], args[3], args[5]}, t);
  };
  return f;
}

std::shared_ptr<const UserFunction> london_layers_function(const std::filesystem::path& startup, int layers) {
  const std::string name = layers == 2 ? "TLondon1D2L" : layers == 3 ? "TLondon1D3L" : "TLondon1D3LS";
  std::shared_ptr<const LondonSet> base = read_set(startup, name);
  const std::vector<double> energies = energies_list(*base);
  // The function's arguments after φ and E, and their places among (B₀, d, t₁, t₂, t₃, λ₁, λ₂, λ₃).
  std::vector<int> place;
  std::vector<std::string> names;
  if (layers == 2) place = {0, 1, 2, 3, 5, 6}, names = {"field", "deadlayer", "thickness1", "thickness2", "lambda1", "lambda2"};
  else if (layers == 3) place = {0, 1, 2, 3, 4, 5, 6, 7}, names = {"field", "deadlayer", "thickness1", "thickness2", "thickness3", "lambda1", "lambda2", "lambda3"};
  else place = {0, 1, 2, 3, 4, 5, 6}, names = {"field", "deadlayer", "thickness1", "thickness2", "thickness3", "lambda1", "lambda2"};
  const std::size_t arity = 2 + place.size();
  const std::size_t weighted = layers == 2 ? 11 : layers == 3 ? 14 : 13;
  auto f = std::make_shared<UserFunction>();
  f->name = name;
  f->where = "built-in user function " + name + " (" + startup.string() + ")";
  f->params = {"phase", "energy"};
  f->params.insert(f->params.end(), names.begin(), names.end());
  f->arity = [arity, weighted](std::size_t n) {
    if (n == arity) return std::string();
    if (n == weighted)
      return "takes " + std::to_string(arity) + " arguments here (the layer weights of its " + std::to_string(weighted) +
             "-argument form are not provided), got " + std::to_string(n);
    return "takes " + std::to_string(arity) + " arguments, got " + std::to_string(n);
  };
  f->native = [base, energies, place, names, layers, name](ProgramBuilder& b, std::span<const std::int32_t> args, std::int32_t t) {
    // Known arguments are folded into the tables' settings; the free ones (at most three) and,
    // to fill three, folded ones (B₀ and the λ first: never 0) are the tables' arguments.
    auto set = std::make_shared<LondonSet>(*base);
    set->layers = layers;
    std::vector<int> free_places;
    std::array<std::int32_t, 8> node{};
    std::string free_names;
    for (std::size_t i = 0; i < place.size(); ++i) {
      const auto p = static_cast<std::size_t>(place[i]);
      node[p] = args[2 + i];
      const auto v = b.known_value(args[2 + i]);
      if (v && std::isfinite(*v)) {
        set->known[p] = *v;
      } else {
        free_places.push_back(place[i]);
        free_names += (free_names.empty() ? "" : ", ") + names[i] + " (argument " + std::to_string(3 + i) + ")";
      }
    }
    if (free_places.size() > 3)
      throw InputError(name + ": at most three of its field, dead layer, thickness and lambda arguments may be free (the others fixed "
                              "parameters or constants): its P(t) is a table of three; free here: " + free_names);
    for (int p : {0, 5, 6, 7, 1, 2, 3, 4}) {
      if (free_places.size() == 3) break;
      if (std::find(free_places.begin(), free_places.end(), p) != free_places.end()) continue;
      if (std::find(place.begin(), place.end(), p) == place.end()) continue;
      free_places.push_back(p);
    }
    std::array<std::int32_t, 3> table_args{};
    for (std::size_t j = 0; j < 3; ++j) {
      set->slot[j] = free_places[j];
      set->known[static_cast<std::size_t>(free_places[j])] = 0.0;  // the table's own
      table_args[j] = node[static_cast<std::size_t>(free_places[j])];
    }
    const int id = register_set(std::move(set));
    return london_program(b, id, energies, args[0], args[1], node[0], node[5], table_args, t);
  };
  return f;
}

}  // namespace tomo::musr::bmw
