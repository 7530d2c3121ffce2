// A rank's share of strip's events on several ranks (docs/multigpu.md, "safir and strip"), every
// subset's events resident in the backend: one projector per subset holds its events from the
// start, so an OSEM subset costs no upload of its events (EventSubsets uploads a subset's events
// each time it is visited). A rank moves its image through the host at every subset anyway (the
// team's sum), so handing it to the subset's projector costs nothing more. Same numbers as
// EventSubsets over the same events.
#pragma once
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "compute/pet/reconstruct.hpp"
#include "compute/strip/projector.hpp"
#include "compute/strip/subsets.hpp"

namespace tomo::strip {

class ResidentSubsets final : public pet::SubsetPrimitives {
 public:
  // The most subsets held as projectors at once; beyond, one projector takes each subset's events
  // when it is visited (as EventSubsets).
  static constexpr int kMaxResident = 64;

  // `make` returns a configured projector (on the rank's device); called once per resident subset.
  ResidentSubsets(const std::function<std::unique_ptr<ListModeProjector>()>& make, std::span<const Event> events,
                  int subsets, std::size_t pixels);

  int subset_count() const override { return subsets_; }
  std::size_t voxel_count() const override { return pixels_; }
  void set_image(std::span<const double> x) override { x_.assign(x.begin(), x.end()); }
  std::vector<double> image() override { return x_; }
  std::vector<double> sensitivity(int) override { return std::vector<double>(pixels_, 1.0 / double(subsets_)); }
  void em_step(int subset) override;
  std::vector<double> back_ratio(int subset) override;

 private:
  EventSubsets& subset(int k);
  int subsets_;
  std::size_t pixels_;
  std::vector<double> x_;
  std::vector<std::unique_ptr<ListModeProjector>> ops_;
  std::vector<std::unique_ptr<EventSubsets>> parts_;  // one per subset, or one visiting all (past kMaxResident)
};

}  // namespace tomo::strip
