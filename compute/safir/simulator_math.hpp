// One copy of safir's Monte-Carlo per-event physics, shared by the cpu simulator (simulator.cpp)
// and the CUDA generator (cuda/safir/simulator.cu): an annihilation drawn from the phantom's
// sources, an isotropic direction, the pair's survival through the cylinder, each photon's hit
// on the crystal ring (gaps, axial escape, optional depth of interaction), randoms and the simple
// scatter model. Every draw comes from the event's own CounterRng stream, so one seed gives the
// same events on both. Plain arrays and IEEE double only: the CUDA form is compiled without FMA
// contraction (cuda/CMakeLists.txt), so only libm's cos, sin, atan2, hypot, exp and log can differ
// from the host's in the last bit, which moves a hit by ~1e-13 mm and changes a crystal id only
// for a hit that close to a crystal edge.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#include "compute/core/counter_rng.hpp"
#include "compute/core/host_device.hpp"

namespace tomo::safir::mc {

struct P3 {
  double x, y, z;
};

// A sphere of the phantom: centre and radius (its weight is in the sources' cdf).
struct Ball {
  double x, y, z, r;
};

// What one event needs besides the sources' cdf and balls.
struct Params {
  // Scanner: front-face radius, axial range of the rings (their pitch cells), angular pitch.
  double R, zmin, zmax, dphi;
  double pitch_mm, crystal_mm, depth_mm, ring0_z;
  int rings, crystals;
  // Depth of interaction: exponential depth of this mean (mm) when doi is set.
  bool doi;
  double attenuation_length_mm;
  // Phantom: the cylinder (the background's source and the attenuating body) and μ (0: none).
  double cyl_r, cyl_hz, mu;
  // Sources: cdf[0] the background, cdf[k] sphere k − 1 (k < n_sources); balls has n_sources − 1.
  int n_sources;
  // Event kinds: P(random) = randoms_fraction; then P(scattered) = scatter_given_not_random.
  double randoms_fraction, scatter_given_not_random;
  // Attempts (annihilations of a true or scattered event, singles of a random) before the event
  // gives up: a phantom the scanner cannot see would otherwise loop for ever.
  std::uint32_t max_tries;
};

constexpr double kPi = 3.14159265358979323846;

// The first k with cdf[k] > u (std::upper_bound over n values).
TOMO_HD int upper_bound(const double* cdf, int n, double u) {
  int lo = 0, hi = n;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (cdf[mid] <= u) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// An annihilation point: a source by its weight, uniform in the cylinder (background) or in a
// sphere (by rejection from its cube).
TOMO_HD P3 emission(CounterRng& rng, const Params& p, const double* cdf, const Ball* balls) {
  const double pick = rng.uniform() * cdf[p.n_sources - 1];
  const int c = upper_bound(cdf, p.n_sources, pick);
  if (c == 0) {
    const double r = p.cyl_r * sqrt(rng.uniform()), phi = 2 * kPi * rng.uniform();
    return {r * cos(phi), r * sin(phi), (2 * rng.uniform() - 1) * p.cyl_hz};
  }
  const Ball& s = balls[(c < p.n_sources - 1 ? c : p.n_sources - 1) - 1];
  for (;;) {
    const double x = 2 * rng.uniform() - 1, y = 2 * rng.uniform() - 1, z = 2 * rng.uniform() - 1;
    if (x * x + y * y + z * z <= 1.0) return {s.x + s.r * x, s.y + s.r * y, s.z + s.r * z};
  }
}

// An isotropic unit direction.
TOMO_HD P3 direction(CounterRng& rng) {
  const double cz = 2 * rng.uniform() - 1, phi = 2 * kPi * rng.uniform(), sz = sqrt(1 - cz * cz);
  return {sz * cos(phi), sz * sin(phi), cz};
}

// Crystal hit by a photon from q0 along unit u, or −1 (escapes axially, falls in a gap, or passes
// through the crystal without interacting when depth of interaction is simulated).
TOMO_HD long long hit(CounterRng& rng, const Params& p, const P3& q0, const P3& u) {
  const double a = u.x * u.x + u.y * u.y;
  if (a <= 0) return -1;
  const double b = q0.x * u.x + q0.y * u.y, c = q0.x * q0.x + q0.y * q0.y - p.R * p.R;
  const double t = (-b + sqrt(b * b - a * c)) / a;
  P3 q{q0.x + t * u.x, q0.y + t * u.y, q0.z + t * u.z};
  if (p.doi) {
    const double s = -log(1.0 - rng.uniform()) * p.attenuation_length_mm;  // 1 − u ∈ (0, 1]
    q = {q.x + s * u.x, q.y + s * u.y, q.z + s * u.z};
    if (hypot(q.x, q.y) > p.R + p.depth_mm) return -1;
  }
  if (q.z < p.zmin || q.z >= p.zmax) return -1;
  double phi = atan2(q.y, q.x);
  if (phi < 0) phi += 2 * kPi;
  const long long det = llround(phi / p.dphi);
  if (fabs(phi - double(det) * p.dphi) * p.R > 0.5 * p.crystal_mm) return -1;  // transaxial gap
  const long long ring = llround((q.z - p.ring0_z) / p.pitch_mm);
  if (ring < 0 || ring >= p.rings || fabs(q.z - (p.ring0_z + p.pitch_mm * double(ring))) > 0.5 * p.crystal_mm)
    return -1;  // axial gap
  return ring * p.crystals + det % p.crystals;
}

// Survival of both photons: exp(−μ · chord of the line through the phantom cylinder).
TOMO_HD double survival(const Params& p, const P3& q, const P3& u) {
  if (p.mu <= 0) return 1.0;
  double t0 = -1e300, t1 = 1e300;
  const double a = u.x * u.x + u.y * u.y;
  if (a > 0) {
    const double b = q.x * u.x + q.y * u.y, c = q.x * q.x + q.y * q.y - p.cyl_r * p.cyl_r;
    const double disc = b * b - a * c;
    if (disc <= 0) return 1.0;
    t0 = (-b - sqrt(disc)) / a;
    t1 = (-b + sqrt(disc)) / a;
  }
  if (u.z != 0) {
    const double za = (-p.cyl_hz - q.z) / u.z, zb = (p.cyl_hz - q.z) / u.z;
    const double lo = za < zb ? za : zb, hi = za < zb ? zb : za;
    t0 = t0 > lo ? t0 : lo;
    t1 = t1 < hi ? t1 : hi;
  }
  return t1 > t0 ? exp(-p.mu * (t1 - t0)) : 1.0;
}

// −log(1 − u) for a uniform u ∈ [0, 1): a unit exponential (a time stamp's gap). One formula of
// IEEE double additions, products and one division, which host and device round alike (the
// CUDA form has no FMA contraction), instead of libm's log, whose last bit differs between them:
// so the gaps, and the stamps summed from them, are the same bits on every generator.
// 1 − u = m·2^e with m ∈ [√½, √2) (1 − u ≥ 2^−53: a normal number); log m = 2·atanh(s) with
// s = (m − 1)/(m + 1), |s| ≤ 0.172, by its series to s^21 (the next term is < 1e-18 of the sum);
// within 2 ulp of the exact value (tests/safir/simulator_test.cpp holds it to libm's).
TOMO_HD double exponential_gap(double u) {
  const double x = 1.0 - u;  // exact: u is a multiple of 2^−53 below 1
  std::uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  int e = int((bits >> 52) & 0x7ff) - 1023;
  bits = (bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull;  // m ∈ [1, 2)
  double m;
  memcpy(&m, &bits, sizeof m);
  if (m > 1.4142135623730951) {  // to [√½, √2): halving is exact
    m *= 0.5;
    ++e;
  }
  const double f = m - 1.0;  // exact (Sterbenz)
  const double s = f / (2.0 + f), z = s * s;
  // 2·atanh(s) = 2s + s·z·(2/3 + z·(2/5 + … + z·2/21)), the coefficients 2/(2k + 1) to the last bit.
  double p = 0x1.8618618618618p-4;  // 2/21
  p = 0x1.af286bca1af28p-4 + z * p;  // 2/19
  p = 0x1.e1e1e1e1e1e1ep-4 + z * p;  // 2/17
  p = 0x1.1111111111111p-3 + z * p;  // 2/15
  p = 0x1.3b13b13b13b14p-3 + z * p;  // 2/13
  p = 0x1.745d1745d1746p-3 + z * p;  // 2/11
  p = 0x1.c71c71c71c71cp-3 + z * p;  // 2/9
  p = 0x1.2492492492492p-2 + z * p;  // 2/7
  p = 0x1.999999999999ap-2 + z * p;  // 2/5
  p = 0x1.5555555555555p-1 + z * p;  // 2/3
  const double log_m = 2.0 * s + s * (z * p);
  // log 2 split: its high part has 33 significant bits, so e·ln2_hi is exact for |e| ≤ 2^20.
  constexpr double ln2_hi = 0x1.62e42fee00000p-1, ln2_lo = 0x1.a39ef35793c76p-33;
  return -(double(e) * ln2_hi + (double(e) * ln2_lo + log_m));
}

// The time stamps' gaps (simulator.hpp time_stamps): block b of kGapBlock consecutive gaps draws
// from stream kGapStreams + b (beside the events' streams e < 2^62), two gaps per Philox block.
constexpr std::uint64_t kGapStreams = std::uint64_t(1) << 62;
constexpr std::uint64_t kGapBlock = std::uint64_t(1) << 14;

enum Kind : std::uint32_t { kTrue = 0, kRandom = 1, kScattered = 2 };

struct EventResult {
  std::uint32_t a, b;        // crystal ids (0, 0 when the event gave up)
  std::uint32_t emissions;   // annihilations drawn (trues and scattered; 0 for a random)
  std::uint32_t kind;        // Kind
  bool detected;             // false: max_tries attempts found no event
};

// One prompt event on its own stream `rng`: a random pair (two singles from independent
// annihilations), a scattered pair (the second photon in a new direction) or a true pair.
TOMO_HD EventResult simulate_event(CounterRng& rng, const Params& p, const double* cdf, const Ball* balls) {
  EventResult r{0u, 0u, 0u, kTrue, false};
  if (p.randoms_fraction > 0 && rng.uniform() < p.randoms_fraction) {
    r.kind = kRandom;
    // One single: its annihilation, then its direction, then its hit (each draw in its own
    // statement: the order of a call's arguments is unspecified, and host and device compilers
    // choose differently).
    const auto single = [&] {
      const P3 q = emission(rng, p, cdf, balls);
      const P3 u = direction(rng);
      return hit(rng, p, q, u);
    };
    long long a = -1, b = -1;
    std::uint32_t tries = 0;
    while (a < 0 && tries++ < p.max_tries) a = single();
    while ((b < 0 || b == a) && tries++ < p.max_tries) b = single();
    if (a < 0 || b < 0 || a == b) return r;
    r.a = std::uint32_t(a);
    r.b = std::uint32_t(b);
    r.detected = true;
    return r;
  }
  const bool scattered = p.scatter_given_not_random > 0 && rng.uniform() < p.scatter_given_not_random;
  if (scattered) r.kind = kScattered;
  while (r.emissions < p.max_tries) {
    ++r.emissions;
    const P3 q = emission(rng, p, cdf, balls);
    const P3 u = direction(rng);
    if (rng.uniform() >= survival(p, q, u)) continue;
    const long long a = hit(rng, p, q, u);
    if (a < 0) continue;
    const P3 v = scattered ? direction(rng) : P3{-u.x, -u.y, -u.z};
    const long long b = hit(rng, p, q, v);
    if (b < 0 || b == a) continue;
    r.a = std::uint32_t(a);
    r.b = std::uint32_t(b);
    r.detected = true;
    break;
  }
  return r;
}

}  // namespace tomo::safir::mc
