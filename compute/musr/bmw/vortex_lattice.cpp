// Triangular vortex-lattice field by a 2D FFT (FFTW), its histogram and its polarisation
// (compute/musr/bmw/vortex_lattice.hpp).
#include "compute/musr/bmw/vortex_lattice.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <string>

#include "compute/core/error.hpp"
#include "compute/core/fftw_planner.hpp"
#include "compute/musr/expression.hpp"

namespace tomo::musr::bmw {
namespace {

void check(const VortexLatticeParams& p) {
  auto bad = [](const std::string& what) { throw InputError("vortex lattice: " + what); };
  if (!(std::isfinite(p.field) && p.field > 0.0)) bad("field " + std::to_string(p.field) + " G is not a positive number");
  if (!(std::isfinite(p.lambda) && p.lambda > 0.0)) bad("lambda " + std::to_string(p.lambda) + " nm is not a positive number");
  if (!(std::isfinite(p.xi) && p.xi >= 0.0)) bad("xi " + std::to_string(p.xi) + " nm is not a number ≥ 0");
  if (p.grid < 8 || p.grid > 2048 || p.grid % 2 != 0) bad("grid " + std::to_string(p.grid) + " is not an even number in [8, 2048]");
}

}  // namespace

std::vector<double> triangular_vortex_field(const VortexLatticeParams& p) {
  check(p);
  const int n = p.grid;
  const auto nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  const bool ml = p.model == VortexModel::modified_london;
  const double bc2 = ml && p.xi > 0.0 ? kFluxQuantum / (2.0 * kPi * p.xi * p.xi) : INFINITY;
  if (ml && (p.field >= bc2 || p.lambda < p.xi / std::sqrt(2.0))) return std::vector<double>(nn, p.field);
  const double one_minus_b = ml ? 1.0 - p.field / bc2 : 1.0;
  const double a = std::sqrt(2.0 * kFluxQuantum / (std::sqrt(3.0) * p.field));  // lattice constant, nm
  const double g0sq = (2.0 * kPi / a) * (2.0 * kPi / a);
  const double l2 = p.lambda * p.lambda / one_minus_b, x2 = ml ? p.xi * p.xi / (2.0 * one_minus_b) : 0.0;

  fftw_complex* c = fftw_alloc_complex(nn);
  if (!c) throw Error("vortex lattice: out of memory for a " + std::to_string(n) + "² grid");
  fftw_plan plan = nullptr;
  {
    std::lock_guard lock(tomo::fftw_planner_mutex());
    plan = fftw_plan_dft_2d(n, n, c, c, FFTW_BACKWARD, FFTW_ESTIMATE);
  }
  if (!plan) {
    fftw_free(c);
    throw Error("vortex lattice: FFTW could not plan a " + std::to_string(n) + "² transform");
  }
  // Fourier coefficients of the rectangular cell: G = 2π(m/a, k/(√3 a)); the two-vortex basis
  // leaves the terms with m + k even (the triangular lattice's reciprocal vectors).
  for (int row = 0; row < n; ++row) {
    const int k = row < n / 2 ? row : row - n;
    for (int col = 0; col < n; ++col) {
      const int m = col < n / 2 ? col : col - n;
      const std::size_t idx = static_cast<std::size_t>(row) * static_cast<std::size_t>(n) + static_cast<std::size_t>(col);
      c[idx][1] = 0.0;
      if ((m + k) % 2 != 0) {
        c[idx][0] = 0.0;
        continue;
      }
      const double gsq = g0sq * (m * m + k * k / 3.0);
      c[idx][0] = p.field * std::exp(-x2 * gsq) / (1.0 + l2 * gsq);
    }
  }
  fftw_execute(plan);
  std::vector<double> b(nn);
  for (std::size_t i = 0; i < nn; ++i) b[i] = c[i][0];
  {
    std::lock_guard lock(tomo::fftw_planner_mutex());
    fftw_destroy_plan(plan);
  }
  fftw_free(c);
  return b;
}

FieldDistribution field_distribution(std::span<const double> field, double db, double at) {
  if (field.empty()) throw InputError("field distribution: no field values");
  if (!(std::isfinite(db) && db > 0.0)) throw InputError("field distribution: bin width " + std::to_string(db) + " G is not positive");
  const auto [lo, hi] = std::minmax_element(field.begin(), field.end());
  if (!std::isfinite(*lo) || !std::isfinite(*hi)) throw InputError("field distribution: a field value is not finite");
  FieldDistribution d;
  d.db = db;
  d.at = at;
  d.b0 = std::floor(*lo / db) * db;
  const double bins = std::floor((*hi - d.b0) / db) + 1.0;
  if (bins > 1e7) throw InputError("field distribution: " + std::to_string(bins) + " bins of " + std::to_string(db) + " G, more than 1e7");
  d.p.assign(static_cast<std::size_t>(bins), 0.0);
  const double w = 1.0 / static_cast<double>(field.size());
  for (double b : field) {
    auto k = static_cast<std::size_t>(std::floor((b - d.b0) / db));
    d.p[std::min(k, d.p.size() - 1)] += w;
  }
  return d;
}

double FieldDistribution::mean() const {
  double m = 0.0;
  for (std::size_t k = 0; k < p.size(); ++k) m += p[k] * field(k);
  return m;
}

double FieldDistribution::variance() const {
  const double m = mean();
  double v = 0.0;
  for (std::size_t k = 0; k < p.size(); ++k) {
    const double x = field(k) - m;
    v += p[k] * x * x;
  }
  return v;
}

void polarization(const FieldDistribution& d, double phase_deg, std::span<const double> t, std::span<double> out) {
  if (out.size() != t.size()) throw Error("vortex lattice: polarization output has the wrong size");
  const double phi = phase_deg * kPi / 180.0;
  std::fill(out.begin(), out.end(), 0.0);
  for (std::size_t k = 0; k < d.p.size(); ++k) {
    if (d.p[k] == 0.0) continue;
    const double w = 2.0 * kPi * kGammaMuOver2Pi * d.field(k);
    for (std::size_t i = 0; i < t.size(); ++i) out[i] += d.p[k] * std::cos(w * t[i] + phi);
  }
}

}  // namespace tomo::musr::bmw
