// The Pippard field profile of libPNL_PippardFitter (compute/musr/bmw/pippard.hpp): ξ_P(T), the
// reduced field b by a sine transform (FFTW) and its reading between depths.
#include <fftw3.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <mutex>
#include <span>

#include "compute/core/error.hpp"
#include "compute/core/fftw_planner.hpp"
#include "compute/musr/bmw/pippard.hpp"

namespace tomo::musr::bmw {
namespace {

constexpr double kDx = 0.02;  // the library's step of x = q ξ_P

// Mühlschlegel's BCS gap Δ(t)/Δ(0) at the reduced temperatures 1, 0.98, …, 0.14 (the library's table).
constexpr std::array<double, 44> kGap = {0,      0.2436, 0.3416, 0.4148, 0.4749, 0.5263, 0.5715, 0.6117, 0.648,  0.681,  0.711,
                                         0.7386, 0.764,  0.7874, 0.8089, 0.8288, 0.8471, 0.864,  0.8796, 0.8939, 0.907,  0.919,
                                         0.9299, 0.9399, 0.9488, 0.9569, 0.9641, 0.9704, 0.976,  0.9809, 0.985,  0.9885, 0.9915,
                                         0.9938, 0.9957, 0.9971, 0.9982, 0.9989, 0.9994, 0.9997, 0.9999, 1,      1,      1};

double gap_ratio(double t) {
  if (t > 1.0) return 0.0;
  if (t < 0.14) return 1.0;
  // Rows at t_i = 1 − 0.02 i; linear between the two around t.
  const double u = (1.0 - t) / 0.02;
  auto i = static_cast<std::size_t>(std::min(std::floor(u), 42.0));
  const double ti = 1.0 - 0.02 * static_cast<double>(i), tj = ti - 0.02;
  return kGap[i] + (kGap[i + 1] - kGap[i]) * (ti - t) / (ti - tj);
}

}  // namespace

double pippard_xi(const PippardSettings& s) {
  const double t = std::min(s.temperature, 0.96);
  const double g = gap_ratio(t);
  const double j = g / (1.0 - t * t) * std::tanh(0.881925 * g / t);
  return s.xi0 * s.mean_free_path / (s.mean_free_path * j + s.xi0);
}

// The bins' values at their middles, x_k = (k − s + ½)dz, joined by cubic Hermite pieces with
// the central differences as slopes (Catmull–Rom: value and slope continuous); the slope at the
// first middle is 0 (b is flat at the surface), at the last one-sided; bins from `end` on read 0
// and x ≤ dz/2 the first bin, as the library.
double PippardField::interpolate(const std::vector<double>& v, double x, bool slope) const {
  if (x > reach) return 0.0;  // x > 0 here
  const auto s0 = static_cast<std::size_t>(shift);
  if (static_cast<std::size_t>(x / dz) + s0 >= end) return 0.0;
  const double u = x / dz - 0.5;
  if (u <= 0.0) return slope ? 0.0 : v[s0];
  const double fl = std::floor(u), f = u - fl;
  const std::size_t k = s0 + static_cast<std::size_t>(fl);
  if (k + 1 >= end) return slope ? 0.0 : v[end - 1];
  auto tangent = [&](std::size_t i) {  // dv/du at middle i
    if (i == s0) return 0.0;
    if (i + 1 >= end) return v[i] - v[i - 1];
    return 0.5 * (v[i + 1] - v[i - 1]);
  };
  const double p0 = v[k], p1 = v[k + 1], m0 = tangent(k), m1 = tangent(k + 1);
  if (slope) {
    const double d = (6 * f * f - 6 * f) * p0 + (3 * f * f - 4 * f + 1) * m0 + (-6 * f * f + 6 * f) * p1 + (3 * f * f - 2 * f) * m1;
    return d / dz;
  }
  const double f2 = f * f, f3 = f2 * f;
  return (2 * f3 - 3 * f2 + 1) * p0 + (f3 - 2 * f2 + f) * m0 + (-2 * f3 + 3 * f2) * p1 + (f3 - f2) * m1;
}

double PippardField::at(double x) const { return x <= 0.0 ? 1.0 : interpolate(b, x, false); }
double PippardField::at_lambda(double x) const { return x <= 0.0 || db.empty() ? 0.0 : interpolate(db, x, false); }
double PippardField::slope(double x) const { return x <= 0.0 ? 0.0 : interpolate(b, x, true); }

double PippardField::bin_value(double x) const {
  if (x <= 0.0) return 1.0;
  if (x > reach) return 0.0;
  const auto k = static_cast<std::size_t>(x / dz) + static_cast<std::size_t>(shift);
  return k < b.size() ? b[k] : 0.0;
}

namespace {

// Im of the DFT of the real q_j = fill(j) (j < n) at k < `count`: out[k] for k ≤ n/2, −Im out[n − k]
// above (a real input's symmetry).
template <class Fill>
std::vector<double> sine_transform(std::size_t un, std::size_t count, Fill&& fill) {
  double* in = fftw_alloc_real(un);
  fftw_complex* out = fftw_alloc_complex(un / 2 + 1);
  if (!in || !out) {
    fftw_free(in), fftw_free(out);
    throw Error("PNL_PippardFitter: out of memory for the field's Fourier transform");
  }
  fftw_plan plan;
  {
    std::lock_guard lock(tomo::fftw_planner_mutex());
    plan = fftw_plan_dft_r2c_1d(static_cast<int>(un), in, out, FFTW_ESTIMATE);
  }
  if (!plan) {
    fftw_free(in), fftw_free(out);
    throw Error("PNL_PippardFitter: FFTW could not plan the field's Fourier transform");
  }
  for (std::size_t j = 0; j < un; ++j) in[j] = fill(j);
  fftw_execute(plan);
  std::vector<double> im(std::min(un, count));
  for (std::size_t k = 0; k < im.size(); ++k) im[k] = k <= un / 2 ? out[k][1] : -out[un - k][1];
  {
    std::lock_guard lock(tomo::fftw_planner_mutex());
    fftw_destroy_plan(plan);
  }
  fftw_free(in), fftw_free(out);
  return im;
}

// k(x_j) = 3/2((1 + x²) atan x − x)/x³ at x_j = 0.02 j (j < n): the same for every λ_L, kept per n.
std::shared_ptr<const std::vector<double>> pippard_kernel(std::size_t n) {
  static std::mutex mutex;
  static std::vector<std::pair<std::size_t, std::shared_ptr<const std::vector<double>>>> kept;
  std::lock_guard lock(mutex);
  for (const auto& [size, k] : kept)
    if (size == n) return k;
  auto k = std::make_shared<std::vector<double>>(n, 0.0);
  for (std::size_t j = 1; j < n; ++j) {
    const double x = static_cast<double>(j) * kDx;
    (*k)[j] = 1.5 * ((1.0 + x * x) * std::atan(x) - x) / (x * x * x);
  }
  if (kept.size() >= 4) kept.erase(kept.begin());
  kept.emplace_back(n, k);
  return k;
}

}  // namespace

PippardField pippard_field(const PippardSettings& s, double lambda_l, bool with_lambda_derivative) {
  const auto un = static_cast<std::size_t>(s.fourier_points);
  const double xi = pippard_xi(s);
  const double lambda_t = lambda_l / std::sqrt(1.0 - std::pow(s.temperature, s.exponent));
  const double alpha = (xi / lambda_t) * (xi / lambda_t) * xi / s.xi0;
  // q_j = x/(x² + αk(x)) (q_0 = 0); ∂q/∂λ_L = q²k(x)/x · 2α/λ_L (α ∝ λ_L⁻²).
  const auto kernel = pippard_kernel(un);
  auto q = [&](std::size_t j) {
    const double x = static_cast<double>(j) * kDx;
    return j == 0 ? 0.0 : x / (x * x + alpha * (*kernel)[j]);
  };
  const std::size_t half = un / 2;
  std::vector<double> im = sine_transform(un, un, q);
  double top = 0.0;
  std::size_t shift = 0;
  for (std::size_t k = 0; k < half; ++k)
    if (std::fabs(im[k]) > std::fabs(top)) top = im[k], shift = k;
  if (top == 0.0 || !std::isfinite(top))
    throw InputError("PNL_PippardFitter: no field profile at lambda_L " + std::to_string(lambda_l) + " nm (its transform is 0 or not finite)");
  im.resize(std::min(un, half + shift + 2));
  PippardField f;
  f.shift = static_cast<int>(shift);
  f.dz = xi * 2.0 * kPi / static_cast<double>(un) / kDx;
  f.reach = static_cast<double>(half) * f.dz;
  f.b.resize(im.size());
  for (std::size_t k = 0; k < f.b.size(); ++k) f.b[k] = im[k] / top;
  if (with_lambda_derivative) {  // ∂(im/top) = (∂im − b ∂top)/top, the peak's bin held
    const std::vector<double> dim = sine_transform(un, im.size(), [&](std::size_t j) {
      const double v = q(j);
      return j == 0 ? 0.0 : v * v * (*kernel)[j] / (static_cast<double>(j) * kDx) * 2.0 * alpha / lambda_l;
    });
    f.db.resize(im.size());
    for (std::size_t k = 0; k < f.db.size(); ++k) f.db[k] = (dim[k] - f.b[k] * dim[shift]) / top;
  }
  f.end = f.b.size();
  if (s.thickness < f.reach) {  // the film: both surfaces, b(x) + b(D − x) over 1 + b(D)
    const auto m = static_cast<std::size_t>(s.thickness / f.dz);
    const double norm = 1.0 + f.b[m + shift];
    std::vector<double> film(f.b.size(), 0.0), dfilm(f.db.size(), 0.0);
    for (std::size_t i = shift; i < m + shift; ++i) {
      film[i] = (f.b[i] + f.b[m - i + 2 * shift]) / norm;
      if (!f.db.empty()) dfilm[i] = (f.db[i] + f.db[m - i + 2 * shift] - film[i] * f.db[m + shift]) / norm;
    }
    f.b = std::move(film), f.db = std::move(dfilm);
    f.end = m + shift;
  }
  return f;
}

}  // namespace tomo::musr::bmw
