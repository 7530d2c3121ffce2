// libFitPofB's P(B) and P(t) (compute/musr/bmw/field_distribution.hpp).
#include "compute/musr/bmw/field_distribution.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/fftw_planner.hpp"
#include "compute/musr/bmw/tri_vortex_ml.hpp"  // kFitPofBGammaBar
#include "compute/musr/expression.hpp"         // kPi

namespace tomo::musr::bmw {
namespace {

// ΔB·Σ P over [first, last] made 1 (the library's Normalize); an empty range stays zero.
void normalise(std::vector<double>& pb, double delta_b, std::size_t first, std::size_t last) {
  double sum = 0.0;
  for (std::size_t i = first; i <= last; ++i) sum += pb[i];
  sum *= delta_b;
  if (sum == 0.0) return;
  for (std::size_t i = first; i <= last; ++i) pb[i] /= sum;
}

struct FftwFree {
  void operator()(void* p) const { fftw_free(p); }
};

// One FFTW plan per transform length for the process (planning costs as much as the transform):
// made on arrays from fftw_malloc, so every array from fftw_malloc meets its alignment, and run
// through the new-array interface, which is thread-safe.
fftw_plan r2c_plan(std::size_t size) {
  static std::map<std::size_t, fftw_plan> plans;
  std::lock_guard lock(tomo::fftw_planner_mutex());
  if (auto it = plans.find(size); it != plans.end()) return it->second;
  if (plans.size() >= 64) throw Error("musr: more than 64 P(B) transform lengths in one process");
  std::unique_ptr<double, FftwFree> in(static_cast<double*>(fftw_malloc(size * sizeof(double))));
  std::unique_ptr<fftw_complex, FftwFree> out(static_cast<fftw_complex*>(fftw_malloc((size / 2 + 1) * sizeof(fftw_complex))));
  if (!in || !out) throw Error("musr: out of memory for the P(B) transform");
  const fftw_plan plan = fftw_plan_dft_r2c_1d(static_cast<int>(size), in.get(), out.get(), FFTW_ESTIMATE);
  if (!plan) throw Error("musr: FFTW could not plan the P(B) transform");
  return plans.emplace(size, plan).first->second;
}

}  // namespace

PofBGrid pofb_grid(double delta_t, double delta_b) {
  auto m = static_cast<std::size_t>(1.0 / (kFitPofBGammaBar * delta_t * delta_b));
  m += m % 2 ? 1 : 2;
  return {.delta_b = delta_b, .size = m, .t_bin = 1.0 / (kFitPofBGammaBar * static_cast<double>(m - 1) * delta_b)};
}

std::vector<double> field_distribution(const PofBGrid& g, const InverseFieldProfile& profile, const TrimSpProfile& n) {
  std::vector<double> pb(g.size, 0.0);
  const double lo = profile.b_min() / g.delta_b, hi = profile.b_max() / g.delta_b;
  if (!(std::isfinite(lo) && std::isfinite(hi)) || lo < 0.0 || hi < lo) throw Error("musr: a field profile's range is not a field range");
  // The library's first and last bins: one beyond the range's ends where they fall on a bin.
  const auto a1 = static_cast<long long>(std::floor(lo)), a2 = static_cast<long long>(std::ceil(lo));
  const auto a3 = static_cast<long long>(std::floor(hi)), a4 = static_cast<long long>(std::ceil(hi));
  const auto first = static_cast<std::size_t>(a1 < a2 ? a1 : (a1 > 0 ? a1 - 1 : 0));
  auto last = static_cast<std::size_t>(a3 < a4 ? a4 : a4 + 1);
  if (last >= g.size) last = g.size - 1;
  if (first > last) return pb;
  InverseBranches branch;
  for (std::size_t i = first; i <= last; ++i) {
    const int nb = profile.inverse(static_cast<double>(i) * g.delta_b, branch);
    for (int j = 0; j < nb; ++j) pb[i] += trim_sp_density(n, branch[j].z) * std::fabs(branch[j].dz_db);
  }
  normalise(pb, g.delta_b, first, last);
  return pb;
}

void add_background(const PofBGrid& g, std::vector<double>& pb, double b_bg, double sigma, double weight) {
  if (sigma == 0.0 || weight < 0.0 || weight > 1.0 || b_bg < 0.0) return;
  const double bs_sq = sigma * sigma / (kFitPofBGammaBar * kFitPofBGammaBar * 4.0 * kPi * kPi);
  // The Gaussian is e^(−x) with x = (B − B_bg)²/2σ²: exactly 0 in double from x > 746 on, so only
  // the bins inside that reach are evaluated; the sum over them is the sum over all bins.
  const double reach = std::sqrt(2.0 * bs_sq * 746.0);
  const double lo = std::floor((b_bg - reach) / g.delta_b), hi = std::ceil((b_bg + reach) / g.delta_b);
  const auto first = static_cast<std::size_t>(std::max(lo, 0.0));
  const auto last = static_cast<std::size_t>(std::min(hi, static_cast<double>(g.size - 1)));
  std::vector<double> bg(g.size, 0.0);
  double sum = 0.0;
  for (std::size_t i = first; i <= last && first <= last; ++i) {
    const double b = static_cast<double>(i) * g.delta_b;
    bg[i] = std::exp(-(b - b_bg) * (b - b_bg) / (2.0 * bs_sq));
    sum += bg[i];
  }
  sum *= g.delta_b;
  if (!(sum > 0.0)) throw InputError("musr: the background field " + std::to_string(b_bg) + " G lies beyond the P(B) grid");
  for (std::size_t i = 0; i < g.size; ++i) pb[i] = (1.0 - weight) * pb[i] + weight * (bg[i] / sum);
}

PolarisationParts polarisation_parts(const PofBGrid& g, const std::vector<double>& pb) {
  if (pb.size() != g.size) throw Error("musr: P(B) does not have the grid's size");
  const std::size_t half = g.size / 2 + 1;
  std::unique_ptr<double, FftwFree> in(static_cast<double*>(fftw_malloc(g.size * sizeof(double))));
  std::unique_ptr<fftw_complex, FftwFree> out(static_cast<fftw_complex*>(fftw_malloc(half * sizeof(fftw_complex))));
  if (!in || !out) throw Error("musr: out of memory for the P(B) transform");
  std::copy(pb.begin(), pb.end(), in.get());
  fftw_execute_dft_r2c(r2c_plan(g.size), in.get(), out.get());
  PolarisationParts p;
  p.c.resize(half), p.s.resize(half);
  for (std::size_t k = 0; k < half; ++k) {
    p.c[k] = out.get()[k][0] * g.delta_b;
    p.s[k] = out.get()[k][1] * g.delta_b;
  }
  return p;
}

}  // namespace tomo::musr::bmw
