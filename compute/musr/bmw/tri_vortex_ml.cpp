// libFitPofB's TBulkTriVortexML (compute/musr/bmw/tri_vortex_ml.hpp).
#include "compute/musr/bmw/tri_vortex_ml.hpp"

#include <fftw3.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <list>
#include <mutex>
#include <tuple>

#include "compute/core/error.hpp"
#include "compute/core/fftw_planner.hpp"
#include "compute/io/input_file.hpp"
#include "compute/musr/bmw/london_hs_function.hpp"
#include "compute/musr/bmw/mean_fields.hpp"
#include "compute/musr/bmw/pippard.hpp"
#include "compute/musr/bmw/recent_builds.hpp"
#include "compute/musr/bmw/startup.hpp"
#include "compute/musr/bmw/vortex_lattice.hpp"  // kFluxQuantum, the grid it documents
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

// C and S at one point and, for each bit j of `bits`, their derivatives by argument j.
struct Pair {
  std::vector<double> c, s;
  std::array<std::vector<double>, 3> dc, ds;
  unsigned bits = 0;
};

// FFTW's arrays and plans, freed on every path.
struct FftwBuffers {
  std::vector<void*> arrays;
  std::vector<fftw_plan> plans;
  template <class T>
  T* alloc(std::size_t n, const char* what) {
    void* p = fftw_malloc(n * sizeof(T));
    if (!p) throw Error(std::string("TBulkTriVortexML: out of memory for ") + what);
    arrays.push_back(p);
    return static_cast<T*>(p);
  }
  void run(fftw_plan p, const char* what) {
    if (!p) throw Error(std::string("TBulkTriVortexML: FFTW could not plan ") + what);
    plans.push_back(p);
    fftw_execute(p);
  }
  ~FftwBuffers() {
    std::lock_guard lock(tomo::fftw_planner_mutex());
    for (auto p : plans) fftw_destroy_plan(p);
    for (auto a : arrays) fftw_free(a);
  }
};

// The lattice on the N × N grid of vortex_lattice.hpp by real inverse FFTs (rows along √3a,
// columns along a; the Hermitian half over the columns), then the quarter's histogram w (and
// the histograms D_j of ∂B/∂argument j), then one real FFT of each:
//   C_i + i·S_i = FFT(w)_i,  ∂C_i = (2πi/(ΔB M))·Im FFT(D_j)_i,  ∂S_i = −(2πi/(ΔB M))·Re FFT(D_j)_i,
// the derivative of each point's cos(2πi·B/(ΔB M)) with B kept in its bin (the histogram itself is
// a staircase in the arguments).
Pair build(const VortexTableSettings& st, double field, double lambda, double xi, unsigned bits) {
  const double f = std::fabs(field), l = std::fabs(lambda), x = std::fabs(xi);
  if (!(std::isfinite(f) && std::isfinite(l) && std::isfinite(x)) || f == 0.0 || l == 0.0 || x == 0.0)
    throw InputError("TBulkTriVortexML: field, lambda and xi must be finite and non-zero (got " + std::to_string(field) + ", " +
                     std::to_string(lambda) + ", " + std::to_string(xi) + ")");
  const double sign[3] = {field < 0 ? -1.0 : 1.0, lambda < 0 ? -1.0 : 1.0, xi < 0 ? -1.0 : 1.0};
  const int n = st.grid, half = n / 2, hc = n / 2 + 1;
  const auto nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  const std::size_t m = pb_size(st);
  std::vector<int> grids = {-1};  // B, then ∂B/∂field, ∂B/∂λ, ∂B/∂ξ as asked
  for (int j = 0; j < 3; ++j)
    if (bits & (1u << j)) grids.push_back(j);
  FftwBuffers buf;
  std::vector<double*> out(grids.size());
  const double bc2 = kFluxQuantum / (2.0 * kPi * x * x);
  const bool lattice = f < bc2 && l >= x / std::sqrt(2.0);
  if (!lattice) {
    // No vortex lattice: B = ⟨B⟩ everywhere, ∂B/∂⟨B⟩ = 1.
    for (std::size_t g = 0; g < grids.size(); ++g) {
      out[g] = buf.alloc<double>(nn, "the vortex grid");
      std::fill(out[g], out[g] + nn, grids[g] < 0 ? f : grids[g] == 0 ? 1.0 : 0.0);
    }
  } else {
    const double b = f / bc2, s = 1.0 / (1.0 - b);
    const double x2 = x * x * s / 2.0, l2 = l * l * s;
    const double g0sq = 2.0 * kPi * kPi * std::sqrt(3.0) * f / kFluxQuantum;  // (2π/a)², a² = 2Φ0/(√3⟨B⟩)
    // ∂(x2, l2)/∂(⟨B⟩, λ, ξ); u = G² moves with ⟨B⟩ only (∂u/∂⟨B⟩ = u/⟨B⟩).
    const double dx2[3] = {x * x / 2.0 * s * s * b / f, 0.0, x * s + x * s * s * b};
    const double dl2[3] = {l * l * s * s * b / f, 2.0 * l * s, l * l * s * s * 2.0 * b / x};
    for (std::size_t g = 0; g < grids.size(); ++g) {
      auto* in = buf.alloc<fftw_complex>(static_cast<std::size_t>(n) * static_cast<std::size_t>(hc), "the vortex grid");
      out[g] = buf.alloc<double>(nn, "the vortex grid");
      const int j = grids[g];
      for (int row = 0; row < n; ++row) {
        const int k = row < half ? row : row - n;
        for (int mcol = 0; mcol < hc; ++mcol) {
          fftw_complex& z = in[static_cast<std::size_t>(row) * static_cast<std::size_t>(hc) + static_cast<std::size_t>(mcol)];
          z[0] = z[1] = 0.0;
          if ((mcol + k) % 2 != 0) continue;  // the triangular lattice: m + k even
          const double u = g0sq * (mcol * mcol + k * k / 3.0);
          const double c = std::exp(-x2 * u) / (1.0 + l2 * u);
          if (j < 0) {
            z[0] = c;
            continue;
          }
          const double dcdx2 = -u * c, dcdl2 = -u * c / (1.0 + l2 * u);
          double d = dcdx2 * dx2[j] + dcdl2 * dl2[j];
          if (j == 0) d += -c * (x2 + l2 / (1.0 + l2 * u)) * u / f;
          z[0] = d;
        }
      }
      fftw_plan plan = nullptr;
      {
        std::lock_guard lock(tomo::fftw_planner_mutex());
        plan = fftw_plan_dft_c2r_2d(n, n, in, out[g], FFTW_ESTIMATE);
      }
      buf.run(plan, "the vortex grid");
    }
    // B = ⟨B⟩·Σ c cos(G·r); ∂B/∂⟨B⟩ = B/⟨B⟩ + ⟨B⟩·Σ ∂c cos(G·r).
    for (std::size_t g = 1; g < grids.size(); ++g)
      for (std::size_t i = 0; i < nn; ++i) out[g][i] = f * out[g][i] + (grids[g] == 0 ? out[0][i] : 0.0);
    for (std::size_t i = 0; i < nn; ++i) out[0][i] *= f;
  }
  // The quarter's histograms and their real FFTs.
  std::vector<double*> hist(grids.size());
  std::vector<fftw_complex*> spec(grids.size());
  for (std::size_t g = 0; g < grids.size(); ++g) {
    hist[g] = buf.alloc<double>(m, "P(B)");
    spec[g] = buf.alloc<fftw_complex>(m / 2 + 1, "P(B)");
    std::fill(hist[g], hist[g] + m, 0.0);
  }
  const double w = 1.0 / static_cast<double>(half * half);
  for (int row = 0; row < half; ++row)
    for (int col = 0; col < half; ++col) {
      const std::size_t at = static_cast<std::size_t>(row) * static_cast<std::size_t>(n) + static_cast<std::size_t>(col);
      const double k = std::ceil(std::fabs(out[0][at]) / st.delta_b);
      if (!(k < static_cast<double>(m))) continue;
      const auto bin = static_cast<std::size_t>(k);
      const double bs = out[0][at] < 0 ? -1.0 : 1.0;
      hist[0][bin] += w;
      for (std::size_t g = 1; g < grids.size(); ++g) hist[g][bin] += w * bs * sign[grids[g]] * out[g][at];
    }
  for (std::size_t g = 0; g < grids.size(); ++g) {
    fftw_plan plan = nullptr;
    {
      std::lock_guard lock(tomo::fftw_planner_mutex());
      plan = fftw_plan_dft_r2c_1d(static_cast<int>(m), hist[g], spec[g], FFTW_ESTIMATE);
    }
    buf.run(plan, "P(B)");
  }
  Pair r;
  r.bits = bits;
  const std::size_t nt = m / 2 + 1;
  r.c.resize(nt), r.s.resize(nt);
  for (std::size_t i = 0; i < nt; ++i) r.c[i] = spec[0][i][0], r.s[i] = spec[0][i][1];
  for (std::size_t g = 1; g < grids.size(); ++g) {
    auto& dc = r.dc[static_cast<std::size_t>(grids[g])];
    auto& ds = r.ds[static_cast<std::size_t>(grids[g])];
    dc.resize(nt), ds.resize(nt);
    for (std::size_t i = 0; i < nt; ++i) {
      const double q = 2.0 * kPi * static_cast<double>(i) / (st.delta_b * static_cast<double>(m));
      dc[i] = q * spec[g][i][1], ds[i] = -q * spec[g][i][0];
    }
  }
  return r;
}

// The last few points: the C and S tables of one point come from one lattice.
std::shared_ptr<const Pair> cached(int id, double field, double lambda, double xi, unsigned bits) {
  static RecentBuilds<std::tuple<int, double, double, double>, Pair> recent;
  return recent.get(std::make_tuple(id, field, lambda, xi), bits,
                    [&](unsigned b) { return build(settings_of(id), field, lambda, xi, b); });
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
  const auto p = cached(id, field, lambda, xi, differences & 7u);
  KtTable t;
  t.dt = 1.0 / (kFitPofBGammaBar * static_cast<double>(m - 1) * st.delta_b);
  t.v = part == 0 ? p->c : p->s;
  t.differences = differences;
  for (std::size_t j = 0; j < 3; ++j) {
    if (differences & (1u << j)) t.dv[j] = part == 0 ? p->dc[j] : p->ds[j];
    else t.dv[j].assign(t.v.size(), 0.0);
  }
  return t;
}

int vortex_table_kind(int id, int part) { return static_cast<int>(TableKind::vortex_lattice) + 2 * id + part; }

KtTable vortex_kind_table(int kind, double a0, double a1, double a2, unsigned differences) {
  if (kind >= kLondonKindBase) return london_kind_table(kind, a0, a1, a2, differences);  // TLondon1DHS
  if (kind >= kMeanFieldKind && kind < kMeanFieldKindEnd) return mean_field_kind_table(kind, a0, a1, a2, differences);
  if (kind >= kPippardKind && kind < kPippardKindEnd) return pippard_kind_table(kind, a0, a1, a2, differences);  // PNL_PippardFitter
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
