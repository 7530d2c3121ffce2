// strip's list-mode subsets for the reconstruction layer.
#include "compute/strip/subsets.hpp"

namespace tomo::strip {

EventSubsets::EventSubsets(ListModeProjector& op, std::span<const Event> events, int subsets, std::size_t pixels,
                           std::vector<double> acceptance)
    : op_(op), subsets_(std::max(subsets, 1)), pixels_(pixels), acceptance_(std::move(acceptance)) {
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

std::vector<double> EventSubsets::sensitivity(int) {
  if (acceptance_.empty()) return std::vector<double>(pixels_, 1.0 / double(subsets_.size()));
  std::vector<double> s = acceptance_;
  for (double& v : s) v /= double(subsets_.size());
  return s;
}

void EventSubsets::em_step(int k) {
  select(k);
  op_.iterate();  // [Bialas2015] eq. (5) over the subset's events
  scale_ = double(subsets_.size());
  if (acceptance_.empty()) return;
  std::vector<double> x = op_.image();  // x·B_k; the step is x·B_k / (c/S)
  for (std::size_t j = 0; j < x.size(); ++j) x[j] = acceptance_[j] > 0 ? x[j] * scale_ / acceptance_[j] : 0.0;
  op_.set_image(x);
  scale_ = 1;
}

std::vector<double> EventSubsets::back_ratio(int k) {
  select(k);
  std::vector<double> v = op_.forward(image());
  for (double& t : v) t = t > 0 ? 1.0 / t : 0.0;
  return op_.back(v);
}

}  // namespace tomo::strip
