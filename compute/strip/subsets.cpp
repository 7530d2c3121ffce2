// strip's list-mode subsets for the reconstruction layer.
#include "compute/strip/subsets.hpp"

namespace tomo::strip {

EventSubsets::EventSubsets(ListModeProjector& op, std::span<const Event> events, int subsets, std::size_t pixels)
    : op_(op), subsets_(std::max(subsets, 1)), pixels_(pixels) {
  if (subsets_.size() == 1) {
    active_ = 0;  // the caller's set_events
    return;
  }
  for (std::size_t i = 0; i < events.size(); ++i) subsets_[i % subsets_.size()].push_back(events[i]);
}

void EventSubsets::select(int k) {
  if (k == active_) return;
  op_.set_events(subsets_[k]);
  active_ = k;
}

void EventSubsets::set_image(std::span<const double> x) {
  op_.set_image(x);
  scale_ = 1;
}

std::vector<double> EventSubsets::image() {
  std::vector<double> x = op_.image();
  if (scale_ != 1)
    for (double& v : x) v *= scale_;
  return x;
}

std::vector<double> EventSubsets::sensitivity(int) { return std::vector<double>(pixels_, 1.0 / double(subsets_.size())); }

void EventSubsets::em_step(int k) {
  select(k);
  op_.iterate();  // [Bialas2015] eq. (5) over the subset's events
  scale_ = double(subsets_.size());
}

std::vector<double> EventSubsets::back_ratio(int k) {
  select(k);
  std::vector<double> v = op_.forward(image());
  for (double& t : v) t = t > 0 ? 1.0 / t : 0.0;
  return op_.back(v);
}

}  // namespace tomo::strip
