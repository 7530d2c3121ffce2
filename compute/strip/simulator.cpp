// Monte-Carlo simulation of the two-strip detector: rejection sampling of the phantom,
// uniform angles in (−π/2, π/2), eq. (1) for Δl, Gaussian smearing by σz, σz, σΔl
// (simulator_math.hpp), each event slot on a counter-based stream of its own.
#include "compute/strip/simulator.hpp"

#include "compute/strip/attenuation.hpp"
#include "compute/strip/normalisation.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>

#include "compute/core/counter_rng.hpp"
#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/multi/process_share.hpp"

namespace tomo::strip {

namespace {

constexpr double kDeg = 3.14159265358979323846 / 180.0;
constexpr std::uint64_t kChunk = 1 << 15;
// Rejection sampling has no bound of its own: a phantom that the strips barely see would run for
// ever. The scenes we know detect ~1 event in 3 samples; the run stops below 1 in kMaxTries. A
// slot gives up after kSlotTries points: at the rate of 1 in kMaxTries a slot needs more with
// probability e^−16 (1e-7), so the mean rate decides as a rule, and a phantom that no line from
// it reaches ends after one slot's kSlotTries points.
constexpr std::uint64_t kMaxTries = 1000;
constexpr std::uint32_t kSlotTries = 16 * kMaxTries;

void check_resolution(const Resolution& res) {
  if (!(res.sigma_z > 0) || !(res.sigma_dl > 0) || !std::isfinite(res.sigma_z) || !std::isfinite(res.sigma_dl))
    throw InputError(str_cat("strip simulator: sigma_z and sigma_dl must be > 0, got ", res.sigma_z, ", ",
                             res.sigma_dl));
}

}  // namespace

SlotSetup slot_setup(const StripGeometry& g, const Resolution& res, const StripPhantom& phantom) {
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
  SlotSetup s;
  s.params = {g.R, g.L, bb[0], bb[1], bb[2], bb[3], vmax, res.sigma_z, res.sigma_dl, kSlotTries};
  for (const EllipseRow& r : phantom.rows)
    s.rows.push_back({r.x, r.y, r.a, r.b, std::cos(r.phi * kDeg), std::sin(r.phi * kDeg), r.rho});
  return s;
}

void throw_starved(const StripGeometry& g) {
  throw InputError(str_cat("strip simulator: fewer than 1 in ", kMaxTries,
                           " sampled emission points gives a detected event; the phantom lies (almost) "
                           "outside the strips' field of view (|y| < R = ",
                           g.R, ", |z| < L/2 = ", 0.5 * g.L, ")"));
}

bool starved_rate(std::uint64_t samples, std::uint64_t count) { return samples > kMaxTries * count; }

std::vector<Event> simulate_phantom(const StripGeometry& g, const Resolution& res, const StripPhantom& phantom,
                                    std::uint64_t count, std::uint64_t seed, SimulationStats* stats, const pet::AttenuationMap* mu,
                                    const StripEfficiency* efficiency) {
  const SlotSetup setup = slot_setup(g, res, phantom);
  const int n_rows = static_cast<int>(setup.rows.size());
  // Attenuation and efficiency lose a pair with one more draw each from the slot's stream.
  const auto keep = [&](CounterRng& rng, double zu, double zd) {
    if (mu && rng.uniform() >= survival(*mu, g.R, zu, zd)) return false;
    if (efficiency && rng.uniform() >= efficiency->pair(zu, zd)) return false;
    return true;
  };

  std::vector<Event> out(count);
  const std::uint64_t chunks = (count + kChunk - 1) / kChunk;
  std::uint64_t emitted = 0, samples = 0;
  std::atomic<bool> starved{false};
  const ProcessShare share = process_share();  // under mpirun: this process's chunks, gathered below
  if (share.size > 1)
    log_info("strip Monte-Carlo: process ", share.rank, " of ", share.size, " runs ", share.count(std::int64_t(chunks)),
             " of ", chunks, " chunks");
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : emitted, samples)
  for (std::int64_t c = 0; c < static_cast<std::int64_t>(chunks); ++c) {
    if (!share.mine(c)) continue;
    const std::uint64_t begin = static_cast<std::uint64_t>(c) * kChunk, end = std::min(count, begin + kChunk);
    for (std::uint64_t i = begin; i < end && !starved.load(std::memory_order_relaxed); ++i) {
      CounterRng rng(seed, i);
      const SlotResult r = simulate_slot(rng, setup.params, setup.rows.data(), n_rows, keep);
      samples += r.tries;
      emitted += r.emitted;
      if (!r.detected) starved.store(true, std::memory_order_relaxed);
      out[i] = {r.z_u, r.z_d, r.dl};
    }
  }
  // Every process learns whether any starved before the collective gather below.
  std::array<double, 3> n{double(emitted), double(samples), starved ? 1.0 : 0.0};
  if (share.size > 1) sum_over_processes(n);
  if (n[2] > 0 || starved_rate(std::uint64_t(n[1]), count)) throw_starved(g);
  if (share.size > 1)  // every process gets every event, as one process would have made them
    gather_chunks(std::as_writable_bytes(std::span<Event>(out)), kChunk * sizeof(Event));
  if (stats) *stats = {std::uint64_t(n[0]), count, std::uint64_t(n[1])};
  return out;
}

std::vector<Event> simulate_point(const StripGeometry& g, const Resolution& res, double y, double z,
                                  std::uint64_t emissions, std::uint64_t seed) {
  check_resolution(res);
  const std::uint64_t chunks = (emissions + kChunk - 1) / kChunk;
  std::vector<std::vector<Event>> parts(chunks);
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t c = 0; c < static_cast<std::int64_t>(chunks); ++c) {
    const std::uint64_t begin = static_cast<std::uint64_t>(c) * kChunk, end = std::min(emissions, begin + kChunk);
    for (std::uint64_t i = begin; i < end; ++i) {
      CounterRng rng(seed, i);
      double zu, zd, dl;
      if (!exact_hits(g.R, g.L, y, z, emission_tan(rng), zu, zd, dl)) continue;
      Event e;
      smear_event(rng, res.sigma_z, res.sigma_dl, zu, zd, dl, e.z_u, e.z_d, e.dl);
      parts[c].push_back(e);
    }
  }
  std::vector<Event> out;
  for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

}  // namespace tomo::strip
