// Blurred spheres, their closed-form pulses and the simulated data of the oat problem.
#include "compute/oat/phantom.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>

#include <cmath>
#include <numbers>
#include <random>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/scene.hpp"

namespace tomo::oat {

namespace {
constexpr double kSqrt2 = std::numbers::sqrt2;
const double kSqrt2Pi = std::sqrt(2 * std::numbers::pi);
}  // namespace

double blurred_sphere_value(const BlurredSphere& s, double rho) {
  const double a = s.radius_mm, sg = s.sigma_mm;
  if (sg <= 0) return rho <= a ? s.value : 0.0;
  const double e = 0.5 * (std::erf((a + rho) / (kSqrt2 * sg)) + std::erf((a - rho) / (kSqrt2 * sg)));
  double g;
  if (rho > 1e-9 * sg) {
    g = sg / (rho * kSqrt2Pi) *
        (std::exp(-(rho - a) * (rho - a) / (2 * sg * sg)) - std::exp(-(rho + a) * (rho + a) / (2 * sg * sg)));
  } else {  // the limit ρ → 0 of the bracket over ρ: 2a/σ²·e^{−a²/2σ²}
    g = sg / kSqrt2Pi * 2 * a / (sg * sg) * std::exp(-a * a / (2 * sg * sg));
  }
  return s.value * (e - g);
}

double sphere_pulse(const BlurredSphere& s, double gruneisen, double c0, double d, double t_us,
                    double extra_sigma_mm) {
  const double r = c0 * t_us, a = s.radius_mm;
  const double k = gruneisen * s.value / (2 * d);
  const double sg = std::sqrt(s.sigma_mm * s.sigma_mm + extra_sigma_mm * extra_sigma_mm);
  if (sg <= 0) return std::abs(d - r) <= a ? k * (d - r) : 0.0;
  // ∫_{d−a}^{d+a} (d − x) G(r − x) dx with u = x − r: (d−r)[Φ(u₂/σ) − Φ(u₁/σ)] + σ²[G(u₂) − G(u₁)].
  const double u1 = d - a - r, u2 = d + a - r;
  const double phi = 0.5 * (std::erf(u2 / (kSqrt2 * sg)) - std::erf(u1 / (kSqrt2 * sg)));
  const double gauss = (std::exp(-u2 * u2 / (2 * sg * sg)) - std::exp(-u1 * u1 / (2 * sg * sg))) / (kSqrt2Pi * sg);
  return k * ((d - r) * phi + sg * sg * gauss);
}

std::vector<double> OatPhantom::rasterize(const Grid3& grid) const {
  std::vector<double> out(grid.count(), 0.0);
  // Every voxel on its own (the paper scene's 2.6 M voxels × 6 spheres of erf took a second on
  // one thread): the same values on any thread count.
#pragma omp parallel for schedule(static)
  for (int k = 0; k < grid.dims[2]; ++k)
    for (int j = 0; j < grid.dims[1]; ++j)
      for (int i = 0; i < grid.dims[0]; ++i) {
        const auto r = grid.centre(i, j, k);
        double v = 0;
        for (const BlurredSphere& s : spheres)
          v += blurred_sphere_value(s, std::hypot(r[0] - s.centre_mm[0], r[1] - s.centre_mm[1], r[2] - s.centre_mm[2]));
        out[grid.index(i, j, k)] = v;
      }
  return out;
}

OatPhantom OatPhantom::six_spheres() {
  OatPhantom p;
  p.spheres = {{{0, 0, 0}, 4.0, 1.0, 0.5},     {{6, 3, 2}, 2.0, 1.5, 0.4},   {{-5, 5, -3}, 2.5, 0.8, 0.4},
               {{3, -6, -4}, 1.5, 2.0, 0.3},   {{-4, -4, 5}, 3.0, 0.6, 0.5}, {{1, 6, -6}, 1.2, 1.2, 0.3}};
  return p;
}

OatPhantom OatPhantom::from_scene(const Scene& s) {
  const std::size_t n = s.array_size("oat.phantom");
  if (n == 0) return six_spheres();
  OatPhantom p;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string k = s.element_key("oat.phantom", i);
    BlurredSphere b;
    b.centre_mm = s.get<std::array<double, 3>>(k + ".centre_mm", {0, 0, 0});
    for (double x : b.centre_mm)
      if (!std::isfinite(x) || std::abs(x) > 1e5) throw InputError(s.where(k + ".centre_mm") + ": not a finite position");
    b.radius_mm = s.get_in_range(k + ".radius_mm", 1.0, 1e-4, 1e5);
    b.value = s.get_in_range(k + ".value", 1.0, -1e12, 1e12);
    b.sigma_mm = s.get_in_range(k + ".sigma_mm", 0.0, 0.0, 1e4);
    p.spheres.push_back(b);
  }
  return p;
}

// Half-width of a blurred sphere's pulse, beyond its radius, in blur σ (see simulate_pressure).
constexpr double kPulseReachSigmas = 10.0;

std::vector<double> simulate_pressure(const OatGeometry& g, const OatPhantom& phantom, const Noise& noise,
                                      double* noise_sigma) {
  const int Q = g.transducer_count(), K = g.time.samples;
  std::vector<double> u(g.data_size(), 0.0);
  const bool gaussian = g.eir.kind == EirKind::gaussian;
  const double extra = gaussian ? g.c0_mm_per_us * g.eir.sigma_us : 0.0;
  const double delay = gaussian ? g.eir.delay_us : 0.0;
#pragma omp parallel for schedule(static)
  for (int q = 0; q < Q; ++q) {
    const Vec3d& r = g.transducers[q];
    for (const BlurredSphere& s : phantom.spheres) {
      const double d = std::hypot(r[0] - s.centre_mm[0], r[1] - s.centre_mm[1], r[2] - s.centre_mm[2]);
      // Beyond a + 10σ of d the pulse is below e^{−50} ≈ 2e-22 of its size (erf is ±1 to that,
      // the Gaussian terms are e^{−u²/2σ²}): only the samples within that window are evaluated
      // (a paper-sized acquisition has 10⁸ samples × spheres, most of them about zero).
      const double sg = std::sqrt(s.sigma_mm * s.sigma_mm + extra * extra);
      const double reach = s.radius_mm + kPulseReachSigmas * sg;
      const double k_lo = ((d - reach) / g.c0_mm_per_us + delay - g.time.t_min_us) / g.time.dt_us();
      const double k_hi = ((d + reach) / g.c0_mm_per_us + delay - g.time.t_min_us) / g.time.dt_us();
      const int k0 = static_cast<int>(std::clamp(std::floor(k_lo) - 1.0, 0.0, double(K)));
      const int k1 = static_cast<int>(std::clamp(std::ceil(k_hi) + 2.0, 0.0, double(K)));
      for (int k = k0; k < k1; ++k)
        u[static_cast<std::size_t>(q) * K + k] += sphere_pulse(s, g.gruneisen, g.c0_mm_per_us, d, g.time.t_us(k) - delay, extra);
    }
  }
  if (g.eir.kind == EirKind::file && !g.eir.taps.empty()) {
    const std::vector<double> p = u;
    const int J = static_cast<int>(g.eir.taps.size());
    for (int q = 0; q < Q; ++q)
      for (int k = 0; k < K; ++k) {
        double acc = 0;
        for (int j = 0; j < J && j <= k; ++j) acc += g.eir.taps[j] * p[static_cast<std::size_t>(q) * K + k - j];
        u[static_cast<std::size_t>(q) * K + k] = acc;
      }
  }
  double sigma = 0;
  if (noise.active()) {
    double peak = 0;
    for (double x : u) peak = std::max(peak, std::abs(x));
    sigma = peak * std::pow(10.0, -noise.snr_db / 20.0);
    std::mt19937_64 rng(noise.seed);
    std::normal_distribution<double> n01(0.0, 1.0);
    for (double& x : u) x += sigma * n01(rng);
  }
  if (noise_sigma) *noise_sigma = sigma;
  return u;
}

}  // namespace tomo::oat
