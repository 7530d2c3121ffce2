// Work split over the processes of an mpirun job and the host sum that joins the shares.
#include "compute/multi/process_share.hpp"

#include <algorithm>
#include <vector>

#include "compute/core/mpi_world.hpp"

namespace tomo {

ProcessShare process_share() {
  ProcessGroup* g = process_group();
  if (!g) return {};
  return {g->rank(), g->size()};
}

void sum_over_processes(std::span<double> v) {
  ProcessGroup* g = process_group();
  if (!g || g->size() <= 1 || v.empty()) return;
  // In blocks of 2^20 values: the gathered copies take P × 8 MiB whatever the vector's size.
  const std::size_t block = std::size_t(1) << 20, procs = std::size_t(g->size());
  std::vector<double> all(std::min(block, v.size()) * procs);
  for (std::size_t at = 0; at < v.size(); at += block) {
    const std::size_t n = std::min(block, v.size() - at);
    g->allgatherv(v.data() + at, all.data(), std::vector<std::size_t>(procs, n * sizeof(double)));
    for (std::size_t i = 0; i < n; ++i) {
      double s = 0;
      for (std::size_t p = 0; p < procs; ++p) s += all[p * n + i];
      v[at + i] = s;
    }
  }
}

void gather_chunks(std::span<std::byte> v, std::size_t chunk) {
  ProcessGroup* g = process_group();
  if (!g || g->size() <= 1 || v.empty() || chunk == 0) return;
  const std::int64_t chunks = std::int64_t((v.size() + chunk - 1) / chunk);
  const auto bytes_of = [&](std::int64_t c) { return std::min(chunk, v.size() - std::size_t(c) * chunk); };
  std::vector<std::size_t> counts(std::size_t(g->size()), 0);
  for (std::int64_t c = 0; c < chunks; ++c) counts[std::size_t(c % g->size())] += bytes_of(c);
  std::vector<std::byte> mine, all(v.size());
  mine.reserve(counts[std::size_t(g->rank())]);
  for (std::int64_t c = g->rank(); c < chunks; c += g->size())
    mine.insert(mine.end(), v.begin() + std::ptrdiff_t(std::size_t(c) * chunk),
                v.begin() + std::ptrdiff_t(std::size_t(c) * chunk + bytes_of(c)));
  g->allgatherv(mine.data(), all.data(), counts);
  // Process p's block holds its chunks p, p + P, … in order.
  std::size_t at = 0;
  for (int p = 0; p < g->size(); ++p)
    for (std::int64_t c = p; c < chunks; c += g->size()) {
      std::copy_n(all.begin() + std::ptrdiff_t(at), bytes_of(c), v.begin() + std::ptrdiff_t(std::size_t(c) * chunk));
      at += bytes_of(c);
    }
}

}  // namespace tomo
