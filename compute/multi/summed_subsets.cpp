// A rank's list-mode share summed over the team at every update.
#include "compute/multi/summed_subsets.hpp"

#include <algorithm>
#include <chrono>

namespace tomo {

namespace {
using clock = std::chrono::steady_clock;
double ms_between(clock::time_point a, clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }
}  // namespace

std::vector<double> SummedSubsets::back_ratio(int subset) {
  const auto t0 = clock::now();
  std::vector<double> b = local_.back_ratio(subset);
  const auto t1 = clock::now();
  team_.allreduce_sum(rank_, std::span<double>(b));
  local_ms_ += ms_between(t0, t1);
  sum_ms_ += ms_between(t1, clock::now());
  return b;
}

// Every rank steps from the same x with its own events: x_r = x·B_k,r/s_k. s_k is the same on
// every rank, so Σ_r x_r = x·(Σ_r B_k,r)/s_k, the step over all events: the backend's own
// (fused) update runs and one image is summed per subset.
void SummedSubsets::em_step(int subset) {
  const auto t0 = clock::now();
  local_.em_step(subset);
  const auto t1 = clock::now();
  std::vector<double> x = local_.image();
  team_.allreduce_sum(rank_, std::span<double>(x));
  local_.set_image(x);
  local_ms_ += ms_between(t0, t1);
  sum_ms_ += ms_between(t1, clock::now());
}

std::vector<std::size_t> rank_event_indices(std::size_t n, int subsets, int rank, int ranks) {
  const std::size_t block = std::size_t(std::max(subsets, 1)), r = std::size_t(std::max(ranks, 1));
  std::vector<std::size_t> mine;
  mine.reserve(n / r + block);
  for (std::size_t b = std::size_t(rank); b * block < n; b += r)
    for (std::size_t i = b * block; i < std::min(n, (b + 1) * block); ++i) mine.push_back(i);
  return mine;
}

}  // namespace tomo
