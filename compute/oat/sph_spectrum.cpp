// H_sph's shared pieces: j₁, p̃₀, face points, frequency-domain data (FFTW).
#include "compute/oat/sph_spectrum.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "compute/core/error.hpp"
#include "compute/core/fftw_planner.hpp"
#include "compute/core/log.hpp"

namespace tomo::oat {

namespace {
constexpr double kPi = std::numbers::pi;
int power_of_two_at_least(int n) {
  int m = 1;
  while (m < n) m *= 2;
  return m;
}
}  // namespace

double spherical_j1(double x) {
  if (std::abs(x) < 1e-2) {
    const double x2 = x * x;  // x/3 − x³/30 + x⁵/840
    return x * (1.0 / 3 - x2 * (1.0 / 30 - x2 / 840));
  }
  return (std::sin(x) - x * std::cos(x)) / (x * x);
}

std::complex<double> eir_spectrum(const OatGeometry& g, double f_mhz) {
  if (!g.eir.active()) return 1.0;
  std::complex<double> s = 0;
  for (std::size_t j = 0; j < g.eir.taps.size(); ++j)
    s += g.eir.taps[j] * std::polar(1.0, -2 * kPi * f_mhz * double(j) * g.time.dt_us());
  return s;
}

std::vector<std::complex<double>> voxel_spectrum(const OatGeometry& g, const SphSetup& s) {
  const double ds = g.voxel_mm(), c0 = g.c0_mm_per_us;
  std::vector<std::complex<double>> p(s.frequencies);
  for (int l = 0; l < s.frequencies; ++l) {
    const double f = s.f_mhz(g, l);
    p[l] = std::complex<double>(0, 3 * g.gruneisen * ds * ds / c0 * spherical_j1(kPi * f * ds / c0)) *
           eir_spectrum(g, f);
  }
  return p;
}

std::vector<std::complex<double>> sph_weights(const OatGeometry& g, const SphSetup& s) {
  auto c = voxel_spectrum(g, s);
  const double scale = 1.0 / (2 * kPi * s.face_points());
  for (auto& x : c) x *= scale;
  return c;
}

std::vector<Vec3d> face_points(const OatGeometry& g, const SphSetup& s) {
  std::vector<Vec3d> out;
  out.reserve(g.transducers.size() * s.face_points());
  for (const Vec3d& p : g.transducers) {
    if (s.point()) {
      out.push_back(p);
      continue;
    }
    Vec3d e{g.centre_mm[0] - p[0], g.centre_mm[1] - p[1], g.centre_mm[2] - p[2]};
    const double ne = std::hypot(e[0], e[1], e[2]);
    if (ne > 0) for (double& x : e) x /= ne; else e = {0, 0, 1};
    Vec3d u{-e[1], e[0], 0.0};  // ẑ × ê
    double nu = std::hypot(u[0], u[1]);
    if (nu < 1e-9) u = {1, 0, 0}, nu = 1;
    for (double& x : u) x /= nu;
    const Vec3d v{e[1] * u[2] - e[2] * u[1], e[2] * u[0] - e[0] * u[2], e[0] * u[1] - e[1] * u[0]};
    const int n = s.aperture_points;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const double a = ((i + 0.5) / n - 0.5) * s.aperture_width_mm, b = ((j + 0.5) / n - 0.5) * s.aperture_height_mm;
        out.push_back({p[0] + a * u[0] + b * v[0], p[1] + a * u[1] + b * v[1], p[2] + a * u[2] + b * v[2]});
      }
  }
  return out;
}

std::vector<Vec3d> voxel_centres(const Grid3& g) {
  std::vector<Vec3d> out;
  out.reserve(g.count());
  for (int k = 0; k < g.dims[2]; ++k)
    for (int j = 0; j < g.dims[1]; ++j)
      for (int i = 0; i < g.dims[0]; ++i) {
        const auto c = g.centre(i, j, k);
        out.push_back({c[0], c[1], c[2]});
      }
  return out;
}

std::vector<std::complex<double>> frequency_data(const OatGeometry& g, const SphSetup& s, std::span<const double> u) {
  const int K = g.time.samples, Q = g.transducer_count(), N = s.fft_length, L = s.frequencies;
  if (u.size() != g.data_size())
    throw Error(str_cat("oat H_sph data: ", u.size(), " time samples, expected ", g.data_size()));
  if (N < K || s.first_bin + L > N / 2 + 1)
    throw Error(str_cat("oat H_sph data: FFT length ", N, " and bins ", s.first_bin, "+", L, " do not fit ", K, " samples"));
  double* x = fftw_alloc_real(N);
  fftw_complex* X = fftw_alloc_complex(N / 2 + 1);
  fftw_plan plan;
  {
    std::lock_guard lock(fftw_planner_mutex());
    plan = fftw_plan_dft_r2c_1d(N, x, X, FFTW_ESTIMATE);
  }
  // Δt·e^{−ĵ2πf t_min}: the continuous transform of a trace that starts at t_min.
  std::vector<std::complex<double>> shift(L);
  for (int l = 0; l < L; ++l) shift[l] = g.time.dt_us() * std::polar(1.0, -2 * kPi * s.f_mhz(g, l) * g.time.t_min_us);
  std::vector<std::complex<double>> out(std::size_t(Q) * L);
  for (int q = 0; q < Q; ++q) {
    std::fill(x, x + N, 0.0);
    std::copy_n(u.begin() + std::size_t(q) * K, K, x);
    fftw_execute(plan);
    for (int l = 0; l < L; ++l) {
      const int b = s.first_bin + l;
      out[std::size_t(q) * L + l] = std::complex<double>(X[b][0], X[b][1]) * shift[l];
    }
  }
  {
    std::lock_guard lock(fftw_planner_mutex());
    fftw_destroy_plan(plan);
  }
  fftw_free(x);
  fftw_free(X);
  return out;
}

SphSetup SphSetup::resolve(const OatGeometry& g, SphSetup s, double f_max_mhz) {
  if (s.fft_length <= 0) s.fft_length = power_of_two_at_least(2 * g.time.samples);
  const double df = g.time.fs_mhz / s.fft_length;
  if (!(f_max_mhz > 0)) f_max_mhz = std::min(0.5 * g.time.fs_mhz, g.c0_mm_per_us / g.voxel_mm());
  if (s.frequencies <= 0) {
    const int last = std::min(s.fft_length / 2, int(std::floor(f_max_mhz / df + 1e-9)));
    s.frequencies = std::max(1, last - s.first_bin + 1);
  }
  if (s.point()) s.aperture_points = 1;
  else if (s.aperture_points <= 0) {
    const double lambda = g.c0_mm_per_us / s.f_mhz(g, s.frequencies - 1);
    const double edge = std::max(s.aperture_width_mm, s.aperture_height_mm);
    s.aperture_points = std::clamp(int(std::ceil(4 * edge / lambda)), 1, 16);
  }
  return s;
}

void SphSetup::validate(const OatGeometry& g, const std::string& where) const {
  auto bad = [&](const std::string& what) { throw InputError(where + ": " + what); };
  if (fft_length < g.time.samples)
    bad(str_cat("FFT length ", fft_length, " is shorter than the ", g.time.samples, " time samples"));
  if (first_bin < 0) bad(str_cat("first frequency bin must be >= 0, got ", first_bin));
  if (frequencies < 1) bad(str_cat("at least one frequency needed, got ", frequencies));
  if (first_bin + frequencies > fft_length / 2 + 1)
    bad(str_cat("bins ", first_bin, "..", first_bin + frequencies - 1, " go past Nyquist (bin ", fft_length / 2, ")"));
  if (!point() && (aperture_points < 1 || aperture_points > 64))
    bad(str_cat("aperture points per side must be in 1..64, got ", aperture_points));
  if (!std::isfinite(aperture_width_mm) || !std::isfinite(aperture_height_mm) || aperture_width_mm < 0 ||
      aperture_height_mm < 0)
    bad("the aperture size must be finite and >= 0 mm");
}

}  // namespace tomo::oat
