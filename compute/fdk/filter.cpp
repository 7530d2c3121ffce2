// FDK weighting and ramp filtering (see filter.hpp). Kernel: Kak & Slaney eq. (3.61),
// h(0) = 1/(4τ²), h(nτ) = −1/(nπτ)² for odd n, 0 for even n; FDK (Feldkamp 1984) weights.
#include "compute/fdk/filter.hpp"

#include <fftw3.h>

#include <cmath>
#include <complex>
#include <mutex>
#include <numbers>

#include "compute/core/error.hpp"
#include "compute/core/fftw_planner.hpp"
#include "compute/core/log.hpp"

namespace tomo::fdk {

namespace {
// Smallest 2^a·3^b·5^c >= n.
int nice_size(int n) {
  for (int m = n;; ++m) {
    int r = m;
    for (int f : {2, 3, 5})
      while (r % f == 0) r /= f;
    if (r == 1) return m;
  }
}
constexpr double kPi = std::numbers::pi;
}  // namespace

RampWindow ramp_window_from_name(const std::string& name, const std::string& where) {
  if (name == "ram-lak" || name == "ramlak") return RampWindow::RamLak;
  if (name == "shepp-logan") return RampWindow::SheppLogan;
  if (name == "hann" || name == "hanning") return RampWindow::Hann;
  throw InputError(where + ": unknown ramp window '" + name + "' (ram-lak, shepp-logan, hann)");
}

const char* ramp_window_name(RampWindow w) {
  switch (w) {
    case RampWindow::RamLak: return "ram-lak";
    case RampWindow::SheppLogan: return "shepp-logan";
    case RampWindow::Hann: return "hann";
  }
  return "?";
}

FdkFilter::FdkFilter(const CArmGeometry& g, FilterOptions o) : g_(g), o_(o) {
  padded_ = nice_size(std::max(64, 2 * g.sx));
  // Without Parker weights the angular sum must total π (FDK's ½∫₀^{2π} dβ): each view stands
  // for its Δβ (or, listed, its angle_weight_rad), so N views stand for N·Δβ, one step more than
  // the arc from the first to the last (π/arc would sum to π·N/(N−1)).
  double covered = 0;
  for (int n = 0; n < g.projections; ++n) covered += g.angles_deg.empty() ? g.step_rad() : g.angle_weight_rad(n);
  flat_weight_ = covered > 0 ? kPi / covered : 0.0;
  const int P = padded_;
  const double tau = g.virtual_pixel_mm();

  // τ·h sampled on the padded circle; its DFT is real (h symmetric).
  std::vector<double> h(P, 0.0);
  h[0] = 1.0 / (4.0 * tau * tau);
  for (int n = 1; n <= P / 2; ++n)
    if (n % 2 == 1) {
      const double v = -1.0 / (n * n * kPi * kPi * tau * tau);
      h[n] = v;
      if (P - n != n) h[P - n] = v;
    }
  response_.assign(P / 2 + 1, 0.0);
  for (int k = 0; k <= P / 2; ++k) {
    double re = 0.0;
    for (int n = 0; n < P; ++n) re += h[n] * std::cos(2.0 * kPi * k * n / P);
    const double x = static_cast<double>(k) / (P / 2);  // fraction of Nyquist
    double win = 1.0;
    if (o.window == RampWindow::SheppLogan && k > 0) win = std::sin(0.5 * kPi * x) / (0.5 * kPi * x);
    if (o.window == RampWindow::Hann) win = 0.5 * (1.0 + std::cos(kPi * x));
    response_[k] = tau * re * win;
  }

  // FDK cosine weight D_sd / sqrt(D_sd² + a² + b²) on the physical detector.
  cosine_.assign(static_cast<std::size_t>(g.sx) * g.sy, 1.0);
  if (o.cosine)
    for (int j = 0; j < g.sy; ++j)
      for (int i = 0; i < g.sx; ++i) {
        const double a = (i - g.u0()) * g.pixel_mm, b = (j - g.v0()) * g.pixel_mm;
        cosine_[static_cast<std::size_t>(j) * g.sx + i] =
            g.source_det_mm / std::sqrt(g.source_det_mm * g.source_det_mm + a * a + b * b);
      }

  // FFTW's planner is not thread-safe; execution with new arrays is.
  std::lock_guard lock(tomo::fftw_planner_mutex());
  double* in = fftw_alloc_real(P);
  fftw_complex* spec = fftw_alloc_complex(P / 2 + 1);
  plan_forward_ = fftw_plan_dft_r2c_1d(P, in, spec, FFTW_ESTIMATE);
  plan_inverse_ = fftw_plan_dft_c2r_1d(P, spec, in, FFTW_ESTIMATE);
  fftw_free(in);
  fftw_free(spec);
  if (!plan_forward_ || !plan_inverse_) throw Error(str_cat("FFTW could not plan a length-", P, " transform"));
}

FdkFilter::~FdkFilter() {
  std::lock_guard lock(tomo::fftw_planner_mutex());
  if (plan_forward_) fftw_destroy_plan(static_cast<fftw_plan>(plan_forward_));
  if (plan_inverse_) fftw_destroy_plan(static_cast<fftw_plan>(plan_inverse_));
}

double FdkFilter::gamma(double u) const {
  const double g = -std::atan((u - g_.u0()) * g_.pixel_mm / g_.source_det_mm);
  return g_.u_along_rotation ? g : -g;
}

double FdkFilter::parker_weight(double beta, double gam) const {
  const double delta = 0.5 * (g_.arc_deg * kPi / 180.0 - kPi);
  if (beta < 0.0 || beta > kPi + 2.0 * delta) return 0.0;
  if (beta < 2.0 * (delta - gam)) {
    const double s = std::sin(0.25 * kPi * beta / (delta - gam));
    return s * s;
  }
  if (beta <= kPi - 2.0 * gam) return 1.0;
  const double s = std::sin(0.25 * kPi * (kPi + 2.0 * delta - beta) / (delta + gam));
  return s * s;
}

void FdkFilter::filter_row(std::vector<double>& r) const {
  const int P = padded_;
  if (static_cast<int>(r.size()) != g_.sx) throw Error(str_cat("filter_row: row has ", r.size(), " samples, want ", g_.sx));
  double* row = fftw_alloc_real(P);
  fftw_complex* spec = fftw_alloc_complex(P / 2 + 1);
  for (int i = 0; i < P; ++i) row[i] = i < g_.sx ? r[i] : 0.0;
  fftw_execute_dft_r2c(static_cast<fftw_plan>(plan_forward_), row, spec);
  for (int k = 0; k <= P / 2; ++k) {
    spec[k][0] *= response_[k] / P;
    spec[k][1] *= response_[k] / P;
  }
  fftw_execute_dft_c2r(static_cast<fftw_plan>(plan_inverse_), spec, row);
  for (int i = 0; i < g_.sx; ++i) r[i] = row[i];
  fftw_free(row);
  fftw_free(spec);
}

std::vector<double> FdkFilter::column_weights(int n) const {
  const double beta = g_.angle_rad(n) - g_.angle_rad(0);
  // Listed (possibly uneven) angles: this projection's share of the angular sum relative to the
  // uniform Δβ that spectrum_scale() applies to every projection.
  const double share = g_.angles_deg.empty() ? 1.0 : g_.angle_weight_rad(n) / g_.step_rad();
  std::vector<double> weight(g_.sx);
  for (int i = 0; i < g_.sx; ++i)
    weight[i] = share * (o_.parker ? parker_weight(beta, gamma(i)) : flat_weight_);
  return weight;
}

// Δβ of the angular sum, 1/P of the unnormalised inverse FFT.
double FdkFilter::spectrum_scale() const { return g_.step_rad() / padded_; }

void FdkFilter::apply(int n, const float* raw, float* out) const {
  const int P = padded_, sx = g_.sx;
  const double scale = spectrum_scale();
  const std::vector<double> weight = column_weights(n);

#pragma omp parallel
  {
    double* row = fftw_alloc_real(P);
    fftw_complex* spec = fftw_alloc_complex(P / 2 + 1);
#pragma omp for schedule(static)
    for (int j = 0; j < g_.sy; ++j) {
      const std::size_t off = static_cast<std::size_t>(j) * sx;
      for (int i = 0; i < sx; ++i) row[i] = raw[off + i] * cosine_[off + i] * weight[i];
      for (int i = sx; i < P; ++i) row[i] = 0.0;
      fftw_execute_dft_r2c(static_cast<fftw_plan>(plan_forward_), row, spec);
      for (int k = 0; k <= P / 2; ++k) {
        spec[k][0] *= response_[k] * scale;
        spec[k][1] *= response_[k] * scale;
      }
      fftw_execute_dft_c2r(static_cast<fftw_plan>(plan_inverse_), spec, row);
      for (int i = 0; i < sx; ++i) out[off + i] = static_cast<float>(row[i]);
    }
    fftw_free(row);
    fftw_free(spec);
  }
}

}  // namespace tomo::fdk
