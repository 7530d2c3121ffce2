// safir's list-mode subsets for the reconstruction layer.
#include "compute/safir/subsets.hpp"

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/pet/subsets.hpp"

namespace tomo::safir {

std::vector<Event> order_for_subsets(std::span<const Event> events, const std::vector<Frame>& frames, int subsets) {
  std::vector<Event> out(events.begin(), events.end());
  if (subsets <= 1) return out;
  for (const Frame& f : frames) {
    const pet::InterleavedSubsets in = pet::interleave_events(f.count, subsets);
    for (std::size_t p = 0; p < f.count; ++p) out[f.first + p] = events[f.first + in.order[p]];
  }
  return out;
}

FrameSubsets::FrameSubsets(ListModeOperator& op, std::span<const double> s, std::size_t first, std::size_t count,
                           int subsets)
    : op_(op), s_(s.begin(), s.end()), first_(first), starts_(pet::interleave_events(count, subsets).starts) {
  if (subsets > 1)
    for (double& v : s_) v /= subsets;
  op_.set_sensitivity(s_);
  select(0);
}

void FrameSubsets::select(int k) {
  if (k == active_) return;
  op_.set_window(first_ + starts_[k], starts_[k + 1] - starts_[k]);
  active_ = k;
}

void FrameSubsets::em_step(int k) {
  select(k);
  op_.iterate();  // [Locans2017] eq. (10) over the subset's events, with s/S
}

std::vector<double> FrameSubsets::back_ratio(int k) {
  select(k);
  std::vector<double> v = op_.forward();  // ȳ = A f + n per event (list mode: y = 1)
  for (double& t : v) t = t > 0 ? 1.0 / t : 0.0;
  return op_.back(v);
}

}  // namespace tomo::safir
