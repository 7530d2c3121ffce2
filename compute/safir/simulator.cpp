// Monte-Carlo photon pairs for the safir scanner (see simulator.hpp): each event on a counter-based
// stream of its own, the per-event physics in simulator_math.hpp (shared with the CUDA generator).
#include "compute/safir/simulator.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <numbers>
#include <span>

#include "compute/core/counter_rng.hpp"
#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/multi/process_share.hpp"

namespace tomo::safir {

namespace {

// A true needs ~3 annihilations on the default scanner and phantom (attenuation, axial escape and
// the gaps lose the others); a phantom the scanner barely sees needs more. An event gives up
// after kMaxTries attempts, and the run then stops: a source the rings see with probability
// 1e-4 per pair finds one in kMaxTries attempts but with probability e^−13.
constexpr std::uint32_t kMaxTries = 1u << 17;
using mc::kGapBlock;
using mc::kGapStreams;

}  // namespace

EventSetup event_setup(const Scanner& sc, const Phantom& ph, const SimulationOptions& o) {
  if (o.events == 0) throw InputError("safir.events must be >= 1");
  if (!(o.randoms_fraction >= 0 && o.scatter_fraction >= 0 && o.randoms_fraction + o.scatter_fraction < 1))
    throw InputError(str_cat("safir simulator: randoms_fraction ", o.randoms_fraction, " and scatter_fraction ",
                             o.scatter_fraction, " must be >= 0 and add up to less than 1"));
  EventSetup s;
  double acc = 0;
  for (double w : ph.source_weights()) s.cdf.push_back(acc += w);
  if (!(acc > 0)) throw InputError("safir simulator: the phantom has no activity");
  for (const Sphere& b : ph.spheres) s.balls.push_back({b.centre[0], b.centre[1], b.centre[2], b.radius});
  s.params = {.R = sc.radius(),
              .zmin = sc.ring_z(0) - 0.5 * sc.pitch_mm,
              .zmax = sc.ring_z(sc.rings - 1) + 0.5 * sc.pitch_mm,
              .dphi = 2.0 * std::numbers::pi / sc.crystals,
              .pitch_mm = sc.pitch_mm,
              .crystal_mm = sc.crystal_mm,
              .depth_mm = sc.depth_mm,
              .ring0_z = sc.ring_z(0),
              .rings = sc.rings,
              .crystals = sc.crystals,
              .doi = o.depth_of_interaction,
              .attenuation_length_mm = o.attenuation_length_mm,
              .cyl_r = ph.cylinder_radius_mm,
              .cyl_hz = ph.cylinder_half_length_mm,
              .mu = ph.mu_per_mm,
              .n_sources = static_cast<int>(s.cdf.size()),
              .randoms_fraction = o.randoms_fraction,
              .scatter_given_not_random = o.scatter_fraction > 0 ? o.scatter_fraction / (1.0 - o.randoms_fraction) : 0.0,
              .max_tries = kMaxTries};
  return s;
}

void throw_unseen() {
  throw InputError(str_cat("safir simulator: no coincidence in ", kMaxTries,
                           " attempts: the scanner (almost) does not see the phantom's sources "
                           "(check the spheres and the cylinder against the rings' axial extent)"));
}

FillVector<double> time_stamps(std::uint64_t events, double duration_s, std::uint64_t seed) {
  // Gaps 0..events (the last closes the process). Block b of kGapBlock gaps draws from stream
  // kGapStreams + b and is summed on one thread, then the blocks' totals are added in order: the
  // same sums on any thread count, and the serial pass is over the blocks only.
  const std::uint64_t gaps = events + 1, blocks = (gaps + kGapBlock - 1) / kGapBlock;
  FillVector<double> t(events);  // every stamp written below
  std::vector<double> offset(blocks + 1, 0.0);
#pragma omp parallel for schedule(static)
  for (std::int64_t b = 0; b < static_cast<std::int64_t>(blocks); ++b) {
    CounterRng rng(seed, kGapStreams + std::uint64_t(b));
    const std::uint64_t end = std::min(gaps, (std::uint64_t(b) + 1) * kGapBlock);
    double sum = 0;
    for (std::uint64_t i = std::uint64_t(b) * kGapBlock; i < end; ++i) {
      sum += mc::exponential_gap(rng.uniform());
      if (i < events) t[i] = sum;
    }
    offset[std::size_t(b) + 1] = sum;
  }
  for (std::uint64_t b = 0; b < blocks; ++b) offset[b + 1] += offset[b];
  const double scale = duration_s / offset[blocks];
#pragma omp parallel for schedule(static)
  for (std::int64_t b = 0; b < static_cast<std::int64_t>(blocks); ++b) {
    const std::uint64_t end = std::min(events, (std::uint64_t(b) + 1) * kGapBlock);
    for (std::uint64_t i = std::uint64_t(b) * kGapBlock; i < end; ++i) t[i] = (offset[std::size_t(b)] + t[i]) * scale;
  }
  return t;
}

ListMode simulate(const Scanner& scanner, const Phantom& phantom, const SimulationOptions& o, SimulationStats* stats) {
  const EventSetup setup = event_setup(scanner, phantom, o);
  ListMode lm;
  lm.events.resize(o.events);
  lm.duration_s = o.duration_s;
  const std::uint64_t chunks = (o.events + kChunkEvents - 1) / kChunkEvents;
  std::uint64_t emissions = 0, randoms = 0, scattered = 0;
  std::atomic<bool> unseen{false};
  const ProcessShare share = process_share();  // under mpirun: this process's chunks, gathered below
  if (share.size > 1)
    log_info("safir Monte-Carlo: process ", share.rank, " of ", share.size, " runs ",
             share.count(std::int64_t(chunks)), " of ", chunks, " chunks");
  // Blocks of kBlock events keep every core busy on a few chunks; each block lies in one chunk.
  constexpr std::uint64_t kBlock = 1024;
  static_assert(kChunkEvents % kBlock == 0);
  const std::uint64_t blocks = (o.events + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : emissions, randoms, scattered)
  for (std::int64_t blk = 0; blk < static_cast<std::int64_t>(blocks); ++blk) {
    if (!share.mine(std::int64_t(std::uint64_t(blk) * kBlock / kChunkEvents))) continue;
    const std::uint64_t end = std::min<std::uint64_t>(o.events, (blk + 1) * kBlock);
    for (std::uint64_t e = blk * kBlock; e < end && !unseen.load(std::memory_order_relaxed); ++e) {
      CounterRng rng(o.seed, e);
      const mc::EventResult r = mc::simulate_event(rng, setup.params, setup.cdf.data(), setup.balls.data());
      if (!r.detected) unseen.store(true, std::memory_order_relaxed);
      lm.events[e] = {r.a, r.b};
      emissions += r.emissions;
      randoms += r.kind == mc::kRandom;
      scattered += r.kind == mc::kScattered;
    }
  }
  // Every process learns whether any gave up before the collective gather below.
  std::array<double, 4> n{double(emissions), double(randoms), double(scattered), unseen ? 1.0 : 0.0};
  if (share.size > 1) sum_over_processes(n);  // whole numbers: exact in any order
  if (n[3] > 0) throw_unseen();
  if (share.size > 1)  // every process gets every event, as one process would have made them
    gather_chunks(std::as_writable_bytes(std::span<Event>(lm.events)), kChunkEvents * sizeof(Event));
  lm.time_s = time_stamps(o.events, o.duration_s, o.seed);
  lm.delayed = std::uint64_t(n[1]);  // the delayed window sees as many randoms as the prompt window
  if (stats) *stats = {std::uint64_t(n[0]), std::uint64_t(n[1]), std::uint64_t(n[2])};
  return lm;
}

}  // namespace tomo::safir
