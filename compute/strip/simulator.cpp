// Monte-Carlo simulation of the two-strip detector: rejection sampling of the phantom,
// uniform angles in (−π/2, π/2), eq. (1) for Δl, Gaussian smearing by σz, σz, σΔl.
#include "compute/strip/simulator.hpp"

#include "compute/strip/attenuation.hpp"
#include "compute/strip/normalisation.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/multi/process_share.hpp"

namespace tomo::strip {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr std::uint64_t kChunk = 1 << 15;
constexpr std::uint64_t kMaxTries = 1000;    // sampled points per detected event before giving up

std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t chunk) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + chunk + 0x632BE59BD9B4E019ull;  // splitmix64
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Smears an exact measurement; returns the event as float32.
Event smear(std::mt19937_64& rng, const Resolution& res, double z_u, double z_d, double dl) {
  std::normal_distribution<double> n01(0.0, 1.0);
  const double a = n01(rng), b = n01(rng), c = n01(rng);
  return {static_cast<float>(z_u + res.sigma_z * a), static_cast<float>(z_d + res.sigma_z * b),
          static_cast<float>(dl + res.sigma_dl * c)};
}

void check_resolution(const Resolution& res) {
  if (!(res.sigma_z > 0) || !(res.sigma_dl > 0) || !std::isfinite(res.sigma_z) || !std::isfinite(res.sigma_dl))
    throw InputError(str_cat("strip simulator: sigma_z and sigma_dl must be > 0, got ", res.sigma_z, ", ",
                             res.sigma_dl));
}

}  // namespace

bool exact_hits(double R, double L, double y, double z, double t, double& z_u, double& z_d, double& dl) {
  z_u = z + (R - y) * t;
  z_d = z - (R + y) * t;
  if (std::abs(z_u) > 0.5 * L || std::abs(z_d) > 0.5 * L) return false;
  // [Bialas2015] eq. (1) with the exact emission point.
  dl = std::sqrt((R - y) * (R - y) + (z_u - z) * (z_u - z)) - std::sqrt((R + y) * (R + y) + (z_d - z) * (z_d - z));
  return true;
}

std::vector<Event> simulate_phantom(const StripGeometry& g, const Resolution& res, const StripPhantom& phantom,
                                    std::uint64_t count, std::uint64_t seed, SimulationStats* stats, const pet::AttenuationMap* mu,
                                    const StripEfficiency* efficiency) {
  check_resolution(res);
  const double vmax = phantom.max_value();
  if (!(vmax > 0)) throw InputError("strip simulator: the phantom has no positive density");
  auto bb = phantom.bounds();
  // Emission points outside |y| < R cannot be detected by this geometry: clip the sampling box.
  bb[0] = std::max(bb[0], -g.R);
  bb[1] = std::min(bb[1], g.R);
  // Likewise beyond the strip ends: a detected line meets both strips within |z| <= L/2, and the
  // emission point lies between its two hits, so it has |z| <= L/2 too.
  bb[2] = std::max(bb[2], -0.5 * g.L);
  bb[3] = std::min(bb[3], 0.5 * g.L);
  if (!(bb[1] > bb[0]) || !(bb[3] > bb[2])) throw InputError("strip simulator: the phantom lies outside the strips");

  std::vector<Event> out(count);
  const std::uint64_t chunks = (count + kChunk - 1) / kChunk;
  std::uint64_t emitted = 0;
  bool starved = false;
  const ProcessShare share = process_share();  // under mpirun: this process's chunks, gathered below
  if (share.size > 1)
    log_info("strip Monte-Carlo: process ", share.rank, " of ", share.size, " runs ", share.count(std::int64_t(chunks)),
             " of ", chunks, " chunks");
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : emitted)
  for (std::int64_t c = 0; c < static_cast<std::int64_t>(chunks); ++c) {
    if (!share.mine(c)) continue;
    std::mt19937_64 rng(mix_seed(seed, static_cast<std::uint64_t>(c)));
    std::uniform_real_distribution<double> uy(bb[0], bb[1]), uz(bb[2], bb[3]), u01(0.0, 1.0),
        uth(-0.5 * kPi, 0.5 * kPi);
    const std::uint64_t begin = static_cast<std::uint64_t>(c) * kChunk, end = std::min(count, begin + kChunk);
    // Rejection sampling has no bound of its own: a phantom that the strips barely see would run
    // for ever. The scenes we know detect ~1 event in 3 samples; give up below 1 in kMaxTries.
    std::uint64_t tries = 0;
    const std::uint64_t budget = kMaxTries * (end - begin);
    for (std::uint64_t i = begin; i < end;) {
      if (++tries > budget) {
#pragma omp atomic write
        starved = true;
        break;
      }
      const double y = uy(rng), z = uz(rng);
      if (u01(rng) * vmax >= phantom.value_at(y, z)) continue;  // emission density ∝ phantom
      ++emitted;
      double zu, zd, dl;
      if (!exact_hits(g.R, g.L, y, z, std::tan(uth(rng)), zu, zd, dl)) continue;  // isotropic in 2D
      if (mu && u01(rng) >= survival(*mu, g.R, zu, zd)) continue;                  // attenuated
      if (efficiency && u01(rng) >= efficiency->pair(zu, zd)) continue;            // not detected
      out[i++] = smear(rng, res, zu, zd, dl);
    }
  }
  if (starved)
    throw InputError(str_cat("strip simulator: fewer than 1 in ", kMaxTries,
                             " sampled emission points gives a detected event; the phantom lies (almost) "
                             "outside the strips' field of view (|y| < R = ",
                             g.R, ", |z| < L/2 = ", 0.5 * g.L, ")"));
  if (share.size > 1) {  // every process gets every event, as one process would have made them
    gather_chunks(std::as_writable_bytes(std::span<Event>(out)), kChunk * sizeof(Event));
    std::array<double, 1> n{double(emitted)};
    sum_over_processes(n);
    emitted = std::uint64_t(n[0]);
  }
  if (stats) *stats = {emitted, count};
  return out;
}

std::vector<Event> simulate_point(const StripGeometry& g, const Resolution& res, double y, double z,
                                  std::uint64_t emissions, std::uint64_t seed) {
  check_resolution(res);
  const std::uint64_t chunks = (emissions + kChunk - 1) / kChunk;
  std::vector<std::vector<Event>> parts(chunks);
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t c = 0; c < static_cast<std::int64_t>(chunks); ++c) {
    std::mt19937_64 rng(mix_seed(seed, static_cast<std::uint64_t>(c)));
    std::uniform_real_distribution<double> uth(-0.5 * kPi, 0.5 * kPi);
    const std::uint64_t begin = static_cast<std::uint64_t>(c) * kChunk, end = std::min(emissions, begin + kChunk);
    for (std::uint64_t i = begin; i < end; ++i) {
      double zu, zd, dl;
      if (exact_hits(g.R, g.L, y, z, std::tan(uth(rng)), zu, zd, dl)) parts[c].push_back(smear(rng, res, zu, zd, dl));
    }
  }
  std::vector<Event> out;
  for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

}  // namespace tomo::strip
