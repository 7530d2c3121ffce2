// safir's sensitivity and frames on several ranks (run_ranks.hpp).
#include "compute/safir/run_ranks.hpp"

#include <chrono>

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/sensitivity_mask.hpp"
#include "compute/multi/summed_subsets.hpp"
#include "compute/pet/prior.hpp"
#include "compute/safir/sensitivity.hpp"
#include "compute/safir/subsets.hpp"

namespace tomo::safir {

namespace {

using clock = std::chrono::steady_clock;
double ms_since(clock::time_point t0) { return std::chrono::duration<double, std::milli>(clock::now() - t0).count(); }

// One rank's events: of every frame, the run of whole blocks of S consecutive events (S the
// subsets) that rank_event_range deals it, so an event keeps its subset (its frame index mod S),
// and the union of the ranks' subset k is the whole acquisition's subset k.
struct RankShare {
  std::vector<std::size_t> acquisition;  // the rank's events as acquisition indices, frame by frame
  std::vector<Frame> frames;             // the same frames, as ranges of `acquisition`
};

RankShare rank_share(const std::vector<Frame>& frames, int subsets, int rank, int ranks) {
  RankShare r;
  for (const Frame& f : frames) {
    Frame mine = f;
    mine.first = r.acquisition.size();
    const EventRange e = rank_event_range(f.count, subsets, rank, ranks);
    for (std::size_t i = 0; i < e.count; ++i) r.acquisition.push_back(f.first + e.first + i);
    mine.count = r.acquisition.size() - mine.first;
    r.frames.push_back(mine);
  }
  return r;
}

// `all` (per acquisition event) at the rank's events in the operator's order.
std::vector<double> gather(const std::vector<double>& all, const std::vector<std::size_t>& at) {
  if (all.empty()) return {};
  std::vector<double> out(at.size());
  for (std::size_t p = 0; p < at.size(); ++p) out[p] = all[at[p]];
  return out;
}

}  // namespace

void check_ranks_compose(const SafirConfig& c) {
  if (c.mlem.halve_events)
    throw InputError("safir: safir.halve_events runs on one device (not with --gpus or several ranks)");
}

RanksOutput reconstruct_on_ranks(const Ranks& ranks, const RanksInput& in, RunReport& report,
                                 const std::function<void(std::size_t, const pet::Step&)>& step) {
  const SafirConfig& c = in.config;
  const Grid3 grid = c.box.grid();
  const pet::ReconOptions& recon = c.pet.recon;
  const int subsets = std::max(recon.subsets, 1);
  auto& reg = BackendRegistry<ListModeOperator>::instance();
  // The correction terms of every acquisition event (identity order): each rank gathers its own.
  std::vector<std::size_t> identity(in.events.size());
  for (std::size_t i = 0; i < identity.size(); ++i) identity[i] = i;
  const pet::ForwardTerms all_terms = in.corrections.event_terms(in.events, identity, in.frames, in.delayed);
  RanksOutput out;
  out.frames.resize(in.frames.size());
  HostTeam& team = *ranks.team;
  team.run([&](int rank) {
    const int local = rank - team.first_local_rank();
    auto t0 = clock::now();
    std::unique_ptr<ListModeOperator> op;
    configure_on_device(ranks.devices[std::size_t(local)], [&] {
      op = reg.create(in.backend);
      op->configure(c.scanner, c.box, c.options);
    });
    std::vector<double> barrier(1, 0.0);
    team.allreduce_sum(rank, std::span<double>(barrier));  // every rank's device is ready
    if (local == 0) report.add_timing("configure", ms_since(t0));

    // The sensitivity: each rank its share of the crystal pairs, summed.
    t0 = clock::now();
    const PairShare share{.rank = rank, .ranks = team.size()};
    std::vector<double> s =
        in.corrections.multiplicative()
            ? compute_weighted_sensitivity(
                  *op, c.scanner, c.box,
                  [&](std::uint32_t a, std::uint32_t b) { return in.corrections.lor_factor(a, b); },
                  std::size_t(1) << 22, share)
            : compute_sensitivity(*op, c.scanner, c.box, c.sensitivity, std::size_t(1) << 22, share);
    team.allreduce_sum(rank, std::span<double>(s));
    std::vector<double> s_fov = s;  // as the one-rank run masks it
    if (c.fov_mask) zero_outside<double>(s_fov, outside_field_of_view(grid, field_of_view(c.scanner)));
    op->set_sensitivity(s_fov);
    if (local == 0) {
      report.add_timing("sensitivity", ms_since(t0));
      out.sensitivity = s;
    }

    // The rank's events, in the order of its subsets, and their correction terms.
    t0 = clock::now();
    const RankShare mine = rank_share(in.frames, subsets, rank, team.size());
    const std::vector<std::size_t> perm = subset_permutation(mine.acquisition.size(), mine.frames, subsets);
    std::vector<std::size_t> at(perm.size());  // operator position → acquisition index
    std::vector<Event> ordered(perm.size());
    for (std::size_t p = 0; p < perm.size(); ++p) {
      at[p] = mine.acquisition[perm[p]];
      ordered[p] = in.events[at[p]];
    }
    pet::ForwardTerms terms{.multiplicative = gather(all_terms.multiplicative, at),
                            .additive = gather(all_terms.additive, at)};
    op->set_events(ordered);
    team.allreduce_sum(rank, std::span<double>(barrier));
    if (local == 0) report.add_timing("upload", ms_since(t0));

    std::unique_ptr<pet::PriorOperator> prior;  // on the rank's device, as its operator
    if (pet::uses_prior(recon.algorithm))
      configure_on_device(ranks.devices[std::size_t(local)], [&] {
        prior = pet::make_prior(in.backend, {grid.dims, grid.voxel_mm}, recon.prior, s_fov);
      });
    double step_ms = 0, sum_ms = 0;  // rank's own EM steps and the team's sums, over the frames
    for (std::size_t k = 0; k < in.frames.size(); ++k) {
      const Frame& f = in.frames[k];
      t0 = clock::now();
      // Uniform randoms: the delayed coincidences of the whole frame's share, per LOR (per event).
      const double frame_share = in.events.empty() ? 0.0 : double(f.count) / double(in.events.size());
      op->set_randoms_per_lor(in.corrections.any() ? 0.0 : double(in.delayed) * frame_share / c.scanner.lor_count());
      FrameSubsets data(*op, s_fov, mine.frames[k].first, mine.frames[k].count, recon.subsets, &terms);
      SummedSubsets summed(data, team, rank);
      if (c.pet.initial_image.empty() && !all_terms.additive.empty()) {
        // The whole frame's flat start, as one rank computes it.
        summed.set_image(flat_start_image(s_fov, std::span<const double>(all_terms.additive).subspan(f.first, f.count)));
      } else {
        summed.set_image(in.start);
      }
      RanksFrame& fr = out.frames[k];
      pet::ReconHooks hooks;
      if (local == 0) {
        fr.saved.resize(c.save_iterations.size());
        hooks.after_subset = [&](const pet::Step& st) { step(k, st); };
        hooks.after_iteration = [&](int t) {
          for (std::size_t i = 0; i < c.save_iterations.size(); ++i)
            if (c.save_iterations[i] == t) fr.saved[i] = summed.image();
          return true;
        };
      }
      pet::reconstruct(summed, recon, prior.get(), hooks);
      op->synchronize();
      const auto labels = op->label_counts();
      std::vector<double> counts(labels.begin(), labels.end());
      team.allreduce_sum(rank, std::span<double>(counts));
      step_ms += summed.local_ms();
      sum_ms += summed.sum_ms();
      if (local == 0) {
        for (std::size_t i = 0; i < 4; ++i) fr.labels[i] = std::size_t(counts[i]);
        fr.image = summed.image();
        fr.reconstruction_ms = ms_since(t0);
      }
    }
    if (local == 0) {  // the caller waits in the team's run meanwhile
      report.set_metric("rank0_step_ms", step_ms);
      report.set_metric("rank0_sum_ms", sum_ms);
    }
  });
  return out;
}

}  // namespace tomo::safir
