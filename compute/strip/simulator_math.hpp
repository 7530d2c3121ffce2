// One copy of the two-strip Monte-Carlo's per-event physics, shared by the cpu simulator
// (simulator.cpp) and the CUDA generator (cuda/strip/simulator.cu): rejection sampling of the
// ellipse phantom, a uniform emission angle, the exact hits of eq. (1) and Gaussian smearing by
// Box–Muller, all on CounterRng draws, so that one seed gives the same events on both.
#pragma once
#include <cmath>
#include <cstdint>

#include "compute/core/counter_rng.hpp"
#include "compute/core/host_device.hpp"

namespace tomo::strip {

// An ellipse of the phantom with its rotation's cos and sin computed once on the host, so that
// the cpu and the GPU test a point with the same numbers.
struct EllipseTerm {
  double x, y;   // centre: x along the strips (z), y across
  double a, b;   // half-axes
  double c, s;   // cos φ, sin φ
  double rho;
};

// What a sampling attempt needs besides the phantom's rows.
struct SlotParams {
  double R, L;
  double y_lo, y_hi, z_lo, z_hi;  // the sampling box (the phantom's bounds clipped to the strips)
  double vmax;                    // the phantom's largest value (rejection bound)
  double sigma_z, sigma_dl;
  std::uint32_t max_tries;        // sampled points per event slot before the slot gives up
};

// The exact (unsmeared) measurement of a pair emitted at (y, z) with tan θ = t:
// z_u = z + (R − y)t, z_d = z − (R + y)t and Δl by eq. (1). False unless both hits lie on the strips.
TOMO_HD bool exact_hits(double R, double L, double y, double z, double t, double& z_u, double& z_d, double& dl) {
  z_u = z + (R - y) * t;
  z_d = z - (R + y) * t;
  if (fabs(z_u) > 0.5 * L || fabs(z_d) > 0.5 * L) return false;
  // [Bialas2015] eq. (1) with the exact emission point.
  dl = sqrt((R - y) * (R - y) + (z_u - z) * (z_u - z)) - sqrt((R + y) * (R + y) + (z_d - z) * (z_d - z));
  return true;
}

// The phantom at (y, z): the first row that contains the point wins (StripPhantom::value_at).
TOMO_HD double phantom_value(const EllipseTerm* rows, int n, double y, double z) {
  for (int i = 0; i < n; ++i) {
    const EllipseTerm& r = rows[i];
    const double dx = z - r.x, dy = y - r.y;
    const double u = r.c * dx + r.s * dy, v = -r.s * dx + r.c * dy;  // into the ellipse frame
    if ((u / r.a) * (u / r.a) + (v / r.b) * (v / r.b) <= 1.0) return r.rho;
  }
  return 0.0;
}

// tan θ of an isotropic (2D) emission: θ uniform in [−π/2, π/2).
TOMO_HD double emission_tan(CounterRng& rng) {
  constexpr double kPi = 3.14159265358979323846;
  return tan(kPi * (rng.uniform() - 0.5));
}

// Three standard normals by Box–Muller from four uniforms (the fourth normal is dropped).
TOMO_HD void three_normals(CounterRng& rng, double& a, double& b, double& c) {
  constexpr double kTwoPi = 6.28318530717958647692;
  const double r1 = sqrt(-2.0 * log(1.0 - rng.uniform()));  // 1 − u ∈ (0, 1]: the log is finite
  const double p1 = kTwoPi * rng.uniform();
  const double r2 = sqrt(-2.0 * log(1.0 - rng.uniform()));
  const double p2 = kTwoPi * rng.uniform();
  a = r1 * cos(p1);
  b = r1 * sin(p1);
  c = r2 * cos(p2);
}

// One smeared event of a pair measured exactly as (z_u, z_d, Δl).
TOMO_HD void smear_event(CounterRng& rng, double sigma_z, double sigma_dl, double z_u, double z_d, double dl,
                         float& ez_u, float& ez_d, float& edl) {
  double a, b, c;
  three_normals(rng, a, b, c);
  ez_u = float(z_u + sigma_z * a);
  ez_d = float(z_d + sigma_z * b);
  edl = float(dl + sigma_dl * c);
}

struct SlotResult {
  float z_u, z_d, dl;
  std::uint32_t tries;    // sampled points
  std::uint32_t emitted;  // accepted emission points (pairs emitted)
  bool detected;          // false: max_tries points gave no detected pair
};

// One event slot: sample points until a pair is detected, on the slot's own stream `rng`.
// `keep(rng, z_u, z_d)` may lose a pair that hits both strips (attenuation, efficiency) with
// draws of its own; the GPU passes one that keeps every pair.
template <class Keep>
TOMO_HD SlotResult simulate_slot(CounterRng& rng, const SlotParams& p, const EllipseTerm* rows, int n_rows,
                                 Keep keep) {
  SlotResult r{0.f, 0.f, 0.f, 0u, 0u, false};
  while (r.tries < p.max_tries) {
    ++r.tries;
    const double y = p.y_lo + (p.y_hi - p.y_lo) * rng.uniform();
    const double z = p.z_lo + (p.z_hi - p.z_lo) * rng.uniform();
    if (rng.uniform() * p.vmax >= phantom_value(rows, n_rows, y, z)) continue;  // emission density ∝ phantom
    ++r.emitted;
    double zu, zd, dl;
    if (!exact_hits(p.R, p.L, y, z, emission_tan(rng), zu, zd, dl)) continue;
    if (!keep(rng, zu, zd)) continue;
    smear_event(rng, p.sigma_z, p.sigma_dl, zu, zd, dl, r.z_u, r.z_d, r.dl);
    r.detected = true;
    break;
  }
  return r;
}

}  // namespace tomo::strip
