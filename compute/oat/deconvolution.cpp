// Hann-windowed EIR deconvolution with FFTW (r2c/c2r, one plan per call, rows executed in turn).
#include "compute/oat/deconvolution.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <mutex>
#include <numbers>

#include "compute/core/error.hpp"
#include "compute/core/fftw_planner.hpp"
#include "compute/core/log.hpp"

namespace tomo::oat {

namespace {
int padded_size(int n) {
  int m = 1;
  while (m < n) m *= 2;
  return m;
}
// |H̃_e(f)| of the taps at f (MHz).
std::complex<double> eir_response(const std::vector<double>& h, double f_mhz, double dt_us) {
  std::complex<double> s = 0;
  for (std::size_t j = 0; j < h.size(); ++j) s += h[j] * std::polar(1.0, -2 * std::numbers::pi * f_mhz * j * dt_us);
  return s;
}
}  // namespace

double hann_window(double f, double fc) {
  if (!(fc > 0) || std::abs(f) >= fc) return 0.0;
  return 0.5 * (1 + std::cos(std::numbers::pi * f / fc));
}

double default_cutoff_mhz(const OatGeometry& g) {
  const double nyq = 0.5 * g.time.fs_mhz;
  if (!g.eir.active()) return nyq;
  const double peak = std::abs(eir_response(g.eir.taps, 0.0, g.time.dt_us()));
  double peak_all = peak;
  const int steps = 512;
  for (int i = 1; i <= steps; ++i) peak_all = std::max(peak_all, std::abs(eir_response(g.eir.taps, nyq * i / steps, g.time.dt_us())));
  for (int i = 1; i <= steps; ++i) {
    const double f = nyq * i / steps;
    if (std::abs(eir_response(g.eir.taps, f, g.time.dt_us())) < 0.01 * peak_all) return f;
  }
  return nyq;
}

std::vector<double> deconvolve_eir(const OatGeometry& g, std::span<const double> u, double cutoff) {
  const int K = g.time.samples, Q = g.transducer_count();
  if (u.size() != g.data_size()) throw Error(str_cat("oat deconvolution: ", u.size(), " samples, expected ", g.data_size()));
  std::vector<double> out(u.begin(), u.end());
  if (!g.eir.active() && !(cutoff > 0)) return out;
  if (!(cutoff > 0)) cutoff = default_cutoff_mhz(g);
  const int J = g.eir.active() ? static_cast<int>(g.eir.taps.size()) : 0;
  const int N = padded_size(2 * K + J), F = N / 2 + 1;
  double* x = fftw_alloc_real(N);
  fftw_complex* X = fftw_alloc_complex(F);
  fftw_plan fwd, inv;
  {
    std::lock_guard lock(tomo::fftw_planner_mutex());
    fwd = fftw_plan_dft_r2c_1d(N, x, X, FFTW_ESTIMATE);
    inv = fftw_plan_dft_c2r_1d(N, X, x, FFTW_ESTIMATE);
  }
  // The filter W/H̃_e on the FFT's frequencies (H̃_e from the taps' own transform).
  std::vector<std::complex<double>> filter(F);
  std::vector<std::complex<double>> H(F, 1.0);
  if (J > 0) {
    std::fill(x, x + N, 0.0);
    std::copy(g.eir.taps.begin(), g.eir.taps.end(), x);
    fftw_execute(fwd);
    for (int f = 0; f < F; ++f) H[f] = {X[f][0], X[f][1]};
  }
  double hmax = 0;
  for (const auto& h : H) hmax = std::max(hmax, std::abs(h));
  for (int f = 0; f < F; ++f) {
    const double fm = f * g.time.fs_mhz / N;
    const double w = hann_window(fm, cutoff);
    filter[f] = (w > 0 && std::abs(H[f]) > 1e-12 * hmax) ? w / H[f] / double(N) : 0.0;
  }
  for (int q = 0; q < Q; ++q) {
    std::fill(x, x + N, 0.0);
    std::copy(u.begin() + static_cast<std::size_t>(q) * K, u.begin() + static_cast<std::size_t>(q + 1) * K, x);
    fftw_execute(fwd);
    for (int f = 0; f < F; ++f) {
      const std::complex<double> v = std::complex<double>(X[f][0], X[f][1]) * filter[f];
      X[f][0] = v.real();
      X[f][1] = v.imag();
    }
    fftw_execute(inv);
    std::copy(x, x + K, out.begin() + static_cast<std::size_t>(q) * K);
  }
  {
    std::lock_guard lock(tomo::fftw_planner_mutex());
    fftw_destroy_plan(fwd);
    fftw_destroy_plan(inv);
  }
  fftw_free(x);
  fftw_free(X);
  return out;
}

}  // namespace tomo::oat
