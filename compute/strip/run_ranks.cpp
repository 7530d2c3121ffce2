// strip's events on a rank, every subset's events resident in its own projector.
#include "compute/strip/run_ranks.hpp"

namespace tomo::strip {

ResidentSubsets::ResidentSubsets(const std::function<std::unique_ptr<ListModeProjector>()>& make,
                                 std::span<const Event> events, int subsets, std::size_t pixels)
    : subsets_(std::max(subsets, 1)), pixels_(pixels), x_(pixels, 1.0) {
  if (subsets_ == 1 || subsets_ > kMaxResident) {
    ops_.push_back(make());
    if (subsets_ == 1) ops_[0]->set_events(events);
    parts_.push_back(std::make_unique<EventSubsets>(*ops_[0], events, subsets_, pixels));
    return;
  }
  // Subset k: events k, k + S, … (EventSubsets' interleaving), each list in its own projector.
  const std::size_t S = std::size_t(subsets_);
  std::vector<Event> mine;
  for (std::size_t k = 0; k < S; ++k) {
    mine.clear();
    for (std::size_t i = k; i < events.size(); i += S) mine.push_back(events[i]);
    ops_.push_back(make());
    ops_.back()->set_events(mine);
    parts_.push_back(std::make_unique<EventSubsets>(*ops_.back(), std::span<const Event>{}, 1, pixels));
  }
}

EventSubsets& ResidentSubsets::subset(int k) { return *parts_[parts_.size() == 1 ? 0 : std::size_t(k)]; }

// A resident subset's projector runs [Bialas2015] eq. (5) over its events alone: the OSEM step
// divided by S (subsets.hpp), so its image is scaled by S here; a visiting one scales itself.
void ResidentSubsets::em_step(int k) {
  EventSubsets& p = subset(k);
  p.set_image(x_);
  p.em_step(parts_.size() == 1 ? k : 0);
  x_ = p.image();
  if (parts_.size() > 1)
    for (double& v : x_) v *= double(subsets_);
}

std::vector<double> ResidentSubsets::back_ratio(int k) {
  EventSubsets& p = subset(k);
  p.set_image(x_);
  return p.back_ratio(parts_.size() == 1 ? k : 0);
}

}  // namespace tomo::strip
