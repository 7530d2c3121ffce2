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

EventRange rank_event_range(std::size_t n, int subsets, int rank, int ranks) {
  const std::size_t block = std::size_t(std::max(subsets, 1)), r = std::size_t(std::max(ranks, 1));
  const std::size_t blocks = (n + block - 1) / block;
  const auto start = [&](std::size_t k) { return std::min(n, (blocks * k / r) * block); };
  const std::size_t first = start(std::size_t(rank)), end = start(std::size_t(rank) + 1);
  return {first, end - first};
}

std::vector<std::size_t> rank_event_indices(std::size_t n, int subsets, int rank, int ranks) {
  const EventRange e = rank_event_range(n, subsets, rank, ranks);
  std::vector<std::size_t> mine(e.count);
  for (std::size_t i = 0; i < e.count; ++i) mine[i] = e.first + i;
  return mine;
}

}  // namespace tomo
