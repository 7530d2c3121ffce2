// H_sph on cpu (double) against closed forms written here, independently of sph_spectrum.cpp:
// one column vs the Fourier transform of the inscribed sphere's N-pulse (closed form and by
// quadrature in time), the low-frequency limit (a point source of energy αΔs³), the FFT data of
// an analytic blurred-sphere pulse vs its spectrum, the adjoint identity (complex inner
// product) for point and rectangular transducers, and the face quadrature vs a fine grid.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <numbers>

#include "compute/core/registry.hpp"
#include "compute/oat/phantom.hpp"
#include "compute/oat/sph_model.hpp"
#include "compute/oat/sph_spectrum.hpp"
#include "tests/oat/sph_fixtures.hpp"

namespace tomo::oat::test {

namespace {
using cd = std::complex<double>;
constexpr double kPi = std::numbers::pi;

// FT (e^{−ĵ2πft}) of the N-pulse ΓA(d − c₀t)/(2d), |d − c₀t| ≤ a, of a uniform sphere (radius
// a, value A) at distance d from a point: ĵΓAa²j₁(2πfa/c₀)/(c₀d)·e^{−ĵ2πfd/c₀}.
cd sphere_spectrum(double gamma, double A, double a, double c0, double d, double f) {
  const double x = 2 * kPi * f * a / c0;
  const double j1 = (std::sin(x) - x * std::cos(x)) / (x * x);
  return cd(0, gamma * A * a * a * j1 / (c0 * d)) * std::polar(1.0, -2 * kPi * f * d / c0);
}

cd taps_spectrum(const OatGeometry& g, double f) {
  cd s = 0;
  for (std::size_t j = 0; j < g.eir.taps.size(); ++j) s += g.eir.taps[j] * std::polar(1.0, -2 * kPi * f * j / g.time.fs_mhz);
  return g.eir.taps.empty() ? cd(1.0) : s;
}


double dist(const Vec3d& a, const std::array<double, 3>& b) { return std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]); }
}  // namespace

TEST(OatSph, ColumnMatchesTheInscribedSpheresSpectrumForPointTransducers) {
  const OatGeometry g = small_geometry(6, 1.0, 2, 3, 20.0, 5.0, EirKind::gaussian);
  const SphSetup s = SphSetup::resolve(g, SphSetup{}, 0);
  const int n = 2 + 6 * (3 + 6 * 4);
  std::vector<double> alpha(g.grid.count(), 0.0);
  alpha[n] = 1.7;
  std::vector<cd> u(s.data_size(g));
  cpu_sph(g, s)->forward(alpha, u);
  const auto r = g.grid.centre(2, 3, 4);
  const double a = 0.5 * g.voxel_mm(), A = 1.7 * 6 / kPi;  // energy of the sphere = αΔs³
  double worst = 0;
  for (int q = 0; q < g.transducer_count(); ++q)
    for (int l = 0; l < s.frequencies; ++l) {
      const double f = s.f_mhz(g, l);
      const cd want = sphere_spectrum(g.gruneisen, A, a, g.c0_mm_per_us, dist(g.transducers[q], r), f) * taps_spectrum(g, f);
      worst = std::max(worst, std::abs(u[q * s.frequencies + l] - want) / std::abs(want));
    }
  std::printf("%d transducers x %d frequencies: worst relative error %.3g\n", g.transducer_count(), s.frequencies, worst);
  EXPECT_LE(worst, 1e-12);
}

TEST(OatSph, NormalisationIsTheFourierTransformOfTheNPulse) {
  // The N-pulse integrated numerically (Simpson, 20001 points) against one H_sph column.
  OatGeometry g = small_geometry(3, 1.0, 1, 1, 20.0, 10.0);
  const SphSetup s = SphSetup::resolve(g, SphSetup{}, 0);
  std::vector<double> alpha(g.grid.count(), 0.0);
  alpha[13] = 1.0;  // the centre voxel
  std::vector<cd> u(s.data_size(g));
  cpu_sph(g, s)->forward(alpha, u);
  const double a = 0.5, A = 6 / kPi, c0 = g.c0_mm_per_us, d = dist(g.transducers[0], g.grid.centre(1, 1, 1));
  for (int l : {0, s.frequencies / 3, s.frequencies - 1}) {
    const double f = s.f_mhz(g, l);
    const int m = 20000;
    const double t0 = (d - a) / c0, h = 2 * a / c0 / m;
    cd sum = 0;
    for (int i = 0; i <= m; ++i) {
      const double t = t0 + i * h, w = (i == 0 || i == m) ? 1 : (i % 2 ? 4 : 2);
      sum += w * g.gruneisen * A * (d - c0 * t) / (2 * d) * std::polar(1.0, -2 * kPi * f * t);
    }
    sum *= h / 3;
    EXPECT_LE(std::abs(u[l] - sum), 1e-9 * std::abs(sum)) << "f = " << f << " MHz";
  }
}

TEST(OatSph, LowFrequencyLimitIsAPointSourceOfEnergyAlphaDs3) {
  OatGeometry g = small_geometry(4, 0.8, 1, 1, 20.0, 10.0);
  SphSetup s;
  s.fft_length = 1 << 22;
  s.first_bin = 1;
  s.frequencies = 1;
  const double f = s.f_mhz(g, 0);
  const cd p0 = voxel_spectrum(g, s)[0];
  // Γ·E/(4πc₀²d)·δ′(t − d/c₀) ↔ ĵΓEf/(2c₀²d) = p̃₀·1/(2πd) with E = Δs³.
  const cd want(0, kPi * g.gruneisen * std::pow(0.8, 3) * f / (g.c0_mm_per_us * g.c0_mm_per_us));
  EXPECT_LE(std::abs(p0 - want), 1e-9 * std::abs(want));
}

TEST(OatSph, FrequencyDataOfAnAnalyticPulseIsItsSpectrum) {
  // A blurred sphere's pulse (phantom.hpp, exact in time) through frequency_data: the sphere
  // spectrum times the Gaussian blur's e^{−2π²f²σ²/c₀²}, up to sampling and window truncation.
  const OatGeometry g = small_geometry(12, 1.0, 2, 4, 25.0, 10.0);
  OatPhantom ph;
  ph.spheres = {{{1.0, -2.0, 0.5}, 2.5, 1.3, 0.6}};
  const auto u = simulate_pressure(g, ph, Noise{});
  const SphSetup s = SphSetup::resolve(g, SphSetup{}, 2.0);
  const auto data = frequency_data(g, s, u);
  double err = 0, norm = 0;
  for (int q = 0; q < g.transducer_count(); ++q) {
    const Vec3d& p = g.transducers[q];
    const double d = std::hypot(p[0] - 1.0, p[1] + 2.0, p[2] - 0.5), c0 = g.c0_mm_per_us;
    for (int l = 0; l < s.frequencies; ++l) {
      const double f = s.f_mhz(g, l);
      const cd want = sphere_spectrum(g.gruneisen, 1.3, 2.5, c0, d, f) * std::exp(-2 * kPi * kPi * f * f * 0.36 / (c0 * c0));
      err += std::norm(data[q * s.frequencies + l] - want);
      norm += std::norm(want);
    }
  }
  std::printf("FFT data vs analytic spectrum, %d frequencies to 2 MHz: rel. L2 %.3g\n", s.frequencies, std::sqrt(err / norm));
  EXPECT_LE(std::sqrt(err / norm), 1e-4);
}

TEST(OatSph, AdjointIdentityHoldsForPointAndRectangularTransducers) {
  const OatGeometry g = small_geometry(7, 1.0, 3, 4, 20.0, 5.0, EirKind::gaussian);
  for (const double w : {0.0, 3.0}) {
    SphSetup req;
    req.aperture_width_mm = w;
    req.aperture_height_mm = 0.7 * w;
    const SphSetup s = SphSetup::resolve(g, req, 0);
    const auto x = random_positive(g.grid.count(), 3);
    const auto yr = random_positive(2 * s.data_size(g), 4);
    std::vector<cd> y(s.data_size(g));
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = cd(yr[2 * i] - 1, yr[2 * i + 1] - 1);
    auto m = cpu_sph(g, s);
    std::vector<cd> hx(y.size());
    std::vector<double> hty(x.size());
    m->forward(x, hx);
    m->adjoint(y, hty);
    double lhs = 0, rhs = 0, nhx = 0, ny = 0;
    for (std::size_t i = 0; i < y.size(); ++i) lhs += (hx[i] * std::conj(y[i])).real(), nhx += std::norm(hx[i]), ny += std::norm(y[i]);
    for (std::size_t i = 0; i < x.size(); ++i) rhs += x[i] * hty[i];
    const double e = std::abs(lhs - rhs) / std::sqrt(nhx * ny);
    std::printf("aperture %.1f mm (%d x %d points): identity %.3g\n", w, s.aperture_points, s.aperture_points, e);
    EXPECT_LE(e, 1e-12);
  }
}

TEST(OatSph, FaceQuadratureMatchesAFineGrid) {
  // h̃/S of a 3 × 2 mm face by the default n × n midpoint rule vs a 400 × 400 one, at the top
  // frequency (worst case), for three voxels (centre, corners) seen from 2 × 3 transducers; the
  // error is relative to a point transducer's response at the same distance.
  const OatGeometry g = small_geometry(5, 2.0, 2, 3, 20.0, 10.0);
  SphSetup req;
  req.aperture_width_mm = 3.0;
  req.aperture_height_mm = 2.0;
  const SphSetup s = SphSetup::resolve(g, req, 3.0);
  SphSetup one = s;
  one.first_bin += s.frequencies - 1;
  one.frequencies = 1;
  std::vector<cd> col(g.transducers.size());
  auto m = cpu_sph(g, one);
  const cd c = voxel_spectrum(g, one)[0];
  const double f = one.f_mhz(g, 0), k = 2 * kPi * f / g.c0_mm_per_us;
  double worst = 0;
  for (int n : {0, 62, 124}) {
    std::vector<double> alpha(g.grid.count(), 0.0);
    alpha[n] = 1;
    m->forward(alpha, col);
    const auto r = g.grid.centre(n % 5, (n / 5) % 5, n / 25);
    for (int q = 0; q < g.transducer_count(); ++q) {
      const Vec3d& p = g.transducers[q];
      const double e[3] = {-p[0] / 20, -p[1] / 20, -p[2] / 20};
      const double nu = std::hypot(e[0], e[1]);
      const double u[3] = {-e[1] / nu, e[0] / nu, 0}, v[3] = {e[1] * u[2] - e[2] * u[1], e[2] * u[0] - e[0] * u[2],
                                                             e[0] * u[1] - e[1] * u[0]};
      const int M = 400;
      cd sum = 0;
      for (int j = 0; j < M; ++j)
        for (int i = 0; i < M; ++i) {
          const double a = ((i + 0.5) / M - 0.5) * 3.0, b = ((j + 0.5) / M - 0.5) * 2.0;
          const double R = std::hypot(p[0] + a * u[0] + b * v[0] - r[0], p[1] + a * u[1] + b * v[1] - r[1],
                                      p[2] + a * u[2] + b * v[2] - r[2]);
          sum += std::polar(1.0 / (2 * kPi * R), -k * R);
        }
      const cd want = c * sum / double(M * M);
      // relative to a point transducer's |p̃₀|/(2πd): the face sum itself may nearly cancel
      worst = std::max(worst, std::abs(col[q] - want) * 2 * kPi * dist(p, r) / std::abs(c));
    }
  }
  std::printf("3 x 2 mm face, %d x %d midpoint points at %.2f MHz: worst rel. error vs 400 x 400 %.3g\n",
              s.aperture_points, s.aperture_points, f, worst);
  EXPECT_LE(worst, 1e-2);
}

}  // namespace tomo::oat::test
