// A rank's share of a list-mode problem's data as the whole problem's SubsetPrimitives: the
// rank's back-projected ratios B_k are summed over the team before every update, so each rank
// runs the same ML-EM/OSEM (or any algorithm of compute/pet) as one rank holding every event, up
// to the order of the float sums (docs/multigpu.md, "safir and strip"). The sensitivity is the
// scanner's (it does not depend on the events) and is taken from the rank as it is.
#pragma once
#include <span>
#include <vector>

#include "compute/core/team.hpp"
#include "compute/pet/reconstruct.hpp"

namespace tomo {

class SummedSubsets final : public pet::SubsetPrimitives {
 public:
  SummedSubsets(pet::SubsetPrimitives& local, Team& team, int rank) : local_(local), team_(team), rank_(rank) {}

  int subset_count() const override { return local_.subset_count(); }
  std::size_t voxel_count() const override { return local_.voxel_count(); }
  void set_image(std::span<const double> x) override { local_.set_image(x); }
  std::vector<double> image() override { return local_.image(); }
  std::vector<double> sensitivity(int subset) override { return local_.sensitivity(subset); }
  // x ← x·B_k/s_k with B_k summed over the team (0 where s_k = 0), as pet::SubsetPrimitives says;
  // every rank must start from the same x.
  void em_step(int subset) override;
  std::vector<double> back_ratio(int subset) override;

  // Where this rank's update time went: its own (backend) part and the team's sum with the image
  // moved to and from the host around it (ms, accumulated since construction).
  double local_ms() const { return local_ms_; }
  double sum_ms() const { return sum_ms_; }

 private:
  pet::SubsetPrimitives& local_;
  Team& team_;
  int rank_;
  double local_ms_ = 0, sum_ms_ = 0;
};

// Rank `rank` of `ranks`' share of `n` events such that every rank holds its part of every
// subset: one run of whole blocks of `subsets` consecutive events (blocks split as evenly as the
// ranks allow), so it starts at a multiple of `subsets` and an event keeps its index modulo
// `subsets` (its subset, compute/pet's interleaving) in the rank's list. A contiguous run: the
// rank's events are a view of the whole list, with no copy. Returns {first, count}.
struct EventRange {
  std::size_t first = 0, count = 0;
};
EventRange rank_event_range(std::size_t n, int subsets, int rank, int ranks);

// The same share as indices, in order.
std::vector<std::size_t> rank_event_indices(std::size_t n, int subsets, int rank, int ranks);

}  // namespace tomo
