// safir's list-mode data as the reconstruction layer's SubsetPrimitives (compute/pet/): the
// events of a frame, reordered so that each of S interleaved subsets (event i of the frame in
// subset i mod S) is one contiguous window of the ListModeOperator. The subset sensitivity of
// list-mode data is s/S (each subset is a thinning of the whole acquisition).
#pragma once
#include <span>
#include <vector>

#include "compute/core/fill_allocator.hpp"
#include "compute/pet/corrections.hpp"
#include "compute/pet/reconstruct.hpp"
#include "compute/safir/mlem.hpp"
#include "compute/safir/projector.hpp"

namespace tomo::safir {

// The events with every frame's events interleaved into `subsets` contiguous subsets (frames
// keep their index ranges); subsets = 1 leaves them as they are. Made on all threads.
FillVector<Event> order_for_subsets(std::span<const Event> events, const std::vector<Frame>& frames, int subsets);
// The same order as indices: position p of the reordered events holds event permutation[p].
std::vector<std::size_t> subset_permutation(std::size_t events, const std::vector<Frame>& frames, int subsets);

// A frame's flat start image with additive terms: pet::flat_start_level of the frame's events and
// of its randoms + scatter counts (`additive`, one per event of the frame, any order), inside the
// field of view (s_fov > 0), 0 outside. One function for every path, so that one device and
// several ranks start from the same image.
std::vector<double> flat_start_image(std::span<const double> s_fov, std::span<const double> additive);

class FrameSubsets final : public pet::SubsetPrimitives {
 public:
  // Sets the sensitivity s/S (s: 0 outside the field of view) and the window of subset 0 of the
  // frame [first, first + count) of events ordered by order_for_subsets.
  // `terms` (per event in the operator's order, docs/pet.md): the normalisation·attenuation
  // factor and the randoms + scatter counts of each event; with them the steps run on the host
  // over forward() and back() (the operator's own randoms must then be 0), without them on the
  // backend.
  FrameSubsets(ListModeOperator& op, std::span<const double> s, std::size_t first, std::size_t count, int subsets,
               const pet::ForwardTerms* terms = nullptr);

  int subset_count() const override { return int(starts_.size()) - 1; }
  std::size_t voxel_count() const override { return s_.size(); }
  void set_image(std::span<const double> x) override { op_.set_image(x); }
  std::vector<double> image() override { return op_.image(); }
  std::vector<double> sensitivity(int subset) override { return s_; }
  void em_step(int subset) override;
  std::vector<double> back_ratio(int subset) override;

 private:
  void select(int subset);
  ListModeOperator& op_;
  std::vector<double> s_;            // s/S
  std::size_t first_;
  std::vector<std::size_t> starts_;  // subset k: [first_ + starts_[k], first_ + starts_[k + 1])
  int active_ = -1;
  const pet::ForwardTerms* terms_ = nullptr;
};

}  // namespace tomo::safir
