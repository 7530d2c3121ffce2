// Monte-Carlo photon pairs for the safir scanner (see simulator.hpp).
#include "compute/safir/simulator.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <random>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/multi/process_share.hpp"

namespace tomo::safir {

namespace {

constexpr std::uint64_t kChunk = 1 << 15;  // events per random stream

struct Sampler {
  const Scanner& sc;
  const Phantom& ph;
  const SimulationOptions& o;
  std::vector<double> cdf;  // over source_weights()
  double R, zmin, zmax, dphi;

  Sampler(const Scanner& s, const Phantom& p, const SimulationOptions& opt) : sc(s), ph(p), o(opt) {
    double acc = 0;
    for (double w : p.source_weights()) cdf.push_back(acc += w);
    R = s.radius();
    zmin = s.ring_z(0) - 0.5 * s.pitch_mm;
    zmax = s.ring_z(s.rings - 1) + 0.5 * s.pitch_mm;
    dphi = 2.0 * std::numbers::pi / s.crystals;
  }

  std::array<double, 3> emission(std::mt19937_64& rng) const {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const double pick = u(rng) * cdf.back();
    const std::size_t c = std::upper_bound(cdf.begin(), cdf.end(), pick) - cdf.begin();
    if (c == 0) {  // uniform in the cylinder
      const double r = ph.cylinder_radius_mm * std::sqrt(u(rng)), phi = 2 * std::numbers::pi * u(rng);
      return {r * std::cos(phi), r * std::sin(phi), (2 * u(rng) - 1) * ph.cylinder_half_length_mm};
    }
    const Sphere& s = ph.spheres[std::min(c, ph.spheres.size()) - 1];
    for (;;) {  // uniform in the sphere by rejection from its cube
      const double x = 2 * u(rng) - 1, y = 2 * u(rng) - 1, z = 2 * u(rng) - 1;
      if (x * x + y * y + z * z <= 1.0)
        return {s.centre[0] + s.radius * x, s.centre[1] + s.radius * y, s.centre[2] + s.radius * z};
    }
  }

  static std::array<double, 3> direction(std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const double cz = 2 * u(rng) - 1, phi = 2 * std::numbers::pi * u(rng), sz = std::sqrt(1 - cz * cz);
    return {sz * std::cos(phi), sz * std::sin(phi), cz};
  }

  // Crystal hit by a photon from p along unit u, or -1 (escapes axially, falls in a gap, or
  // passes through the crystal without interacting when depth of interaction is simulated).
  long long hit(const std::array<double, 3>& p, const std::array<double, 3>& u, std::mt19937_64& rng) const {
    const double a = u[0] * u[0] + u[1] * u[1];
    if (a <= 0) return -1;
    const double b = p[0] * u[0] + p[1] * u[1], c = p[0] * p[0] + p[1] * p[1] - R * R;
    const double t = (-b + std::sqrt(b * b - a * c)) / a;
    std::array<double, 3> q{p[0] + t * u[0], p[1] + t * u[1], p[2] + t * u[2]};
    if (o.depth_of_interaction) {
      std::exponential_distribution<double> depth(1.0 / o.attenuation_length_mm);
      const double s = depth(rng);
      for (int i = 0; i < 3; ++i) q[i] += s * u[i];
      if (std::hypot(q[0], q[1]) > R + sc.depth_mm) return -1;
    }
    if (q[2] < zmin || q[2] >= zmax) return -1;
    double phi = std::atan2(q[1], q[0]);
    if (phi < 0) phi += 2 * std::numbers::pi;
    const long long det = std::llround(phi / dphi);
    if (std::abs(phi - det * dphi) * R > 0.5 * sc.crystal_mm) return -1;  // transaxial gap
    const long long ring = std::llround((q[2] - sc.ring_z(0)) / sc.pitch_mm);
    if (ring < 0 || ring >= sc.rings || std::abs(q[2] - sc.ring_z(static_cast<int>(ring))) > 0.5 * sc.crystal_mm)
      return -1;  // axial gap
    return ring * sc.crystals + det % sc.crystals;
  }

  // Survival of both photons: exp(−μ · chord of the line through the phantom cylinder).
  double survival(const std::array<double, 3>& p, const std::array<double, 3>& u) const {
    if (ph.mu_per_mm <= 0) return 1.0;
    const double rc = ph.cylinder_radius_mm, hz = ph.cylinder_half_length_mm;
    double t0 = -1e300, t1 = 1e300;
    const double a = u[0] * u[0] + u[1] * u[1];
    if (a > 0) {
      const double b = p[0] * u[0] + p[1] * u[1], c = p[0] * p[0] + p[1] * p[1] - rc * rc;
      const double disc = b * b - a * c;
      if (disc <= 0) return 1.0;
      t0 = (-b - std::sqrt(disc)) / a;
      t1 = (-b + std::sqrt(disc)) / a;
    }
    if (u[2] != 0) {
      double za = (-hz - p[2]) / u[2], zb = (hz - p[2]) / u[2];
      if (za > zb) std::swap(za, zb);
      t0 = std::max(t0, za);
      t1 = std::min(t1, zb);
    }
    return t1 > t0 ? std::exp(-ph.mu_per_mm * (t1 - t0)) : 1.0;
  }
};

}  // namespace

ListMode simulate(const Scanner& scanner, const Phantom& phantom, const SimulationOptions& o, SimulationStats* stats) {
  if (o.events == 0) throw InputError("safir.events must be >= 1");
  const Sampler smp(scanner, phantom, o);
  ListMode lm;
  lm.events.resize(o.events);
  lm.duration_s = o.duration_s;
  const std::uint64_t chunks = (o.events + kChunk - 1) / kChunk;
  std::uint64_t emissions = 0, randoms = 0, scattered = 0;
  const ProcessShare share = process_share();  // under mpirun: this process's chunks, gathered below
  if (share.size > 1)
    log_info("safir Monte-Carlo: process ", share.rank, " of ", share.size, " runs ",
             share.count(std::int64_t(chunks)), " of ", chunks, " chunks");
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : emissions, randoms, scattered)
  for (std::int64_t ch = 0; ch < static_cast<std::int64_t>(chunks); ++ch) {
    if (!share.mine(ch)) continue;
    std::seed_seq seq{o.seed, static_cast<std::uint64_t>(ch), std::uint64_t{0x5afe}};
    std::mt19937_64 rng(seq);
    std::uniform_real_distribution<double> u01(0.0, 1.0);
    const std::uint64_t end = std::min<std::uint64_t>(o.events, (ch + 1) * kChunk);
    for (std::uint64_t e = ch * kChunk; e < end; ++e) {
      if (o.randoms_fraction > 0 && u01(rng) < o.randoms_fraction) {
        // Two singles from independent annihilations, one photon of each detected.
        long long a = -1, b = -1;
        while (a < 0) a = smp.hit(smp.emission(rng), Sampler::direction(rng), rng);
        while (b < 0 || b == a) b = smp.hit(smp.emission(rng), Sampler::direction(rng), rng);
        lm.events[e] = {static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b)};
        ++randoms;
        continue;
      }
      if (o.scatter_fraction > 0 && u01(rng) < o.scatter_fraction / (1.0 - o.randoms_fraction)) {
        // The scatter model (simulator.hpp): the second photon in a new direction.
        for (;;) {
          ++emissions;
          const auto p = smp.emission(rng);
          const auto u = Sampler::direction(rng);
          if (u01(rng) >= smp.survival(p, u)) continue;
          const long long a = smp.hit(p, u, rng);
          if (a < 0) continue;
          const long long b = smp.hit(p, Sampler::direction(rng), rng);
          if (b < 0 || b == a) continue;
          lm.events[e] = {static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b)};
          break;
        }
        ++scattered;
        continue;
      }
      for (;;) {
        ++emissions;
        const auto p = smp.emission(rng);
        const auto u = Sampler::direction(rng);
        if (u01(rng) >= smp.survival(p, u)) continue;
        const long long a = smp.hit(p, u, rng);
        if (a < 0) continue;
        const long long b = smp.hit(p, {-u[0], -u[1], -u[2]}, rng);
        if (b < 0 || b == a) continue;
        lm.events[e] = {static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b)};
        break;
      }
    }
  }
  if (share.size > 1) {  // every process gets every event, as one process would have made them
    gather_chunks(std::as_writable_bytes(std::span<Event>(lm.events)), kChunk * sizeof(Event));
    std::array<double, 3> n{double(emissions), double(randoms), double(scattered)};
    sum_over_processes(n);  // whole numbers: exact in any order
    emissions = std::uint64_t(n[0]), randoms = std::uint64_t(n[1]), scattered = std::uint64_t(n[2]);
  }
  // Poisson process given its count: uniform order statistics, T·S_i / S_{N+1} of exponential sums.
  lm.time_s.resize(o.events);
  std::mt19937_64 trng(o.seed ^ 0x7157ULL);
  std::exponential_distribution<double> gap(1.0);
  double sum = 0;
  for (auto& t : lm.time_s) t = (sum += gap(trng));
  sum += gap(trng);
  for (auto& t : lm.time_s) t *= o.duration_s / sum;
  lm.delayed = randoms;  // the delayed window sees as many randoms as the prompt window
  if (stats) *stats = {emissions, randoms, scattered};
  return lm;
}

}  // namespace tomo::safir
