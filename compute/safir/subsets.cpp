// safir's list-mode subsets for the reconstruction layer.
#include "compute/safir/subsets.hpp"

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/pet/subsets.hpp"

namespace tomo::safir {

std::vector<std::size_t> subset_permutation(std::size_t events, const std::vector<Frame>& frames, int subsets) {
  std::vector<std::size_t> out(events);
  for (std::size_t i = 0; i < events; ++i) out[i] = i;
  if (subsets <= 1) return out;
  for (const Frame& f : frames) {
    const pet::InterleavedSubsets in = pet::interleave_events(f.count, subsets);
    for (std::size_t p = 0; p < f.count; ++p) out[f.first + p] = f.first + in.order[p];
  }
  return out;
}

std::vector<Event> order_for_subsets(std::span<const Event> events, const std::vector<Frame>& frames, int subsets) {
  const std::vector<std::size_t> perm = subset_permutation(events.size(), frames, subsets);
  std::vector<Event> out(events.size());
  for (std::size_t p = 0; p < out.size(); ++p) out[p] = events[perm[p]];
  return out;
}

std::vector<double> flat_start_image(std::span<const double> s_fov, std::span<const double> additive) {
  double sum_s = 0, sum_c = 0;
  for (double v : s_fov) sum_s += v;
  for (double v : additive) sum_c += v;
  const double level = pet::flat_start_level(double(additive.size()), sum_c, sum_s);
  std::vector<double> x0(s_fov.size());
  for (std::size_t j = 0; j < x0.size(); ++j) x0[j] = s_fov[j] > 0 ? level : 0.0;
  return x0;
}

FrameSubsets::FrameSubsets(ListModeOperator& op, std::span<const double> s, std::size_t first, std::size_t count,
                           int subsets, const pet::ForwardTerms* terms)
    : op_(op), s_(s.begin(), s.end()), first_(first), starts_(pet::interleave_events(count, subsets).starts),
      terms_(terms && !terms->empty() ? terms : nullptr) {
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
  if (!terms_) {
    select(k);
    op_.iterate();  // [Locans2017] eq. (10) over the subset's events, with s/S
    return;
  }
  const std::vector<double> b = back_ratio(k);
  std::vector<double> x = op_.image();
  pet::em_update(x, b, s_);
  op_.set_image(x);
}

std::vector<double> FrameSubsets::back_ratio(int k) {
  select(k);
  std::vector<double> v = op_.forward();  // A f + n per event (list mode: y = 1)
  if (terms_) {
    pet::list_mode_ratio(v, *terms_, first_ + starts_[k]);  // n·a / (n·a·A f + r + s)
  } else {
    for (double& t : v) t = t > 0 ? 1.0 / t : 0.0;
  }
  return op_.back(v);
}

}  // namespace tomo::safir
