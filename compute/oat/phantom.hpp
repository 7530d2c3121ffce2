// The oat phantom: uniform spheres blurred by a 3D Gaussian, with their exact pressure pulses
// ([Wang2013] "Model": the N-pulse convolved with a temporal Gaussian of σ/c₀).
// Independent of the operators: data simulated here never go through H.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "compute/oat/geometry.hpp"

namespace tomo {
class Scene;
}

namespace tomo::oat {

struct BlurredSphere {
  Vec3d centre_mm{0, 0, 0};
  double radius_mm = 1;  // a
  double value = 1;      // A (absorbed energy density)
  double sigma_mm = 0;   // 3D Gaussian blur (0: a sharp uniform sphere)
};

// f(ρ) of one blurred sphere at distance ρ from its centre (closed form: erf and Gaussian terms).
double blurred_sphere_value(const BlurredSphere& s, double rho);

// The pressure at a point transducer at distance d from the centre, time t (µs), for a sharp
// sphere (N-pulse Γ·A·(d − c₀t)/(2d) for |d − c₀t| ≤ a) convolved with a Gaussian of
// sqrt(σ² + extra_sigma_mm²)/c₀; `extra_sigma_mm` carries a Gaussian EIR (c₀σ_e). Valid for d
// beyond the blurred sphere (the term of ρ = d + c₀t is dropped: it is below e^{−(d+a)²/2σ²}).
double sphere_pulse(const BlurredSphere& s, double gruneisen, double c0, double d, double t_us,
                    double extra_sigma_mm = 0);

struct OatPhantom {
  std::vector<BlurredSphere> spheres;

  // Point values at the voxel centres (x fastest).
  std::vector<double> rasterize(const Grid3& grid) const;
  // [[oat.phantom]] tables (centre_mm, radius_mm, value, sigma_mm); `six_spheres` when absent.
  static OatPhantom from_scene(const Scene& s);
  // Our default: six blurred spheres of different sizes and values inside a 24 mm ball.
  static OatPhantom six_spheres();
};

// White Gaussian noise at `snr_db` relative to the peak: σ_n = max|u|·10^(−snr/20). ∞ = none.
struct Noise {
  double snr_db = 1e300;
  std::uint64_t seed = 1;
  bool active() const { return snr_db < 1e299; }
};

// u[q·K + k] from the analytic pulses (summed over spheres), the EIR (gaussian: exactly, as
// an extra blur and a delay; file: the taps applied to the sampled pulses) and noise.
// Returns the noise σ used (0 without noise) through `noise_sigma`.
std::vector<double> simulate_pressure(const OatGeometry& g, const OatPhantom& phantom, const Noise& noise,
                                      double* noise_sigma = nullptr);

}  // namespace tomo::oat
