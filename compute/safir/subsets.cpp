// safir's list-mode subsets for the reconstruction layer.
#include "compute/safir/subsets.hpp"

#include <algorithm>
#include <cstdint>

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

FillVector<Event> order_for_subsets(std::span<const Event> events, const std::vector<Frame>& frames, int subsets) {
  // subset_permutation's order written straight out on all threads (13.9 M events: no 111 MB
  // index arrays, no zero-fill on one thread): subset k of a frame holds its events k, k + S,
  // k + 2S, … (pet::interleave_events), after the subsets before it.
  const std::size_t total = events.size();
  FillVector<Event> out(total);
  std::size_t covered = 0;
  bool contiguous = true;
  for (const Frame& f : frames) {
    if (f.first != covered || f.first + f.count > total) contiguous = false;
    covered = f.first + f.count;
  }
  if (subsets <= 1 || !contiguous || covered != total) {  // events outside the frames keep their place
#pragma omp parallel for schedule(static)
    for (std::int64_t p = 0; p < std::int64_t(total); ++p) out[std::size_t(p)] = events[std::size_t(p)];
    if (subsets <= 1) return out;
  }
  const std::size_t S = static_cast<std::size_t>(subsets);
  for (const Frame& f : frames) {
    if (f.first >= total) continue;
    const std::size_t count = std::min(f.count, total - f.first);
    std::size_t at = f.first;
    for (std::size_t k = 0; k < S && k < count; ++k) {
      const std::size_t n = (count - k + S - 1) / S;
      const Event* from = events.data() + f.first + k;
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < std::int64_t(n); ++i) out[at + std::size_t(i)] = from[std::size_t(i) * S];
      at += n;
    }
  }
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
