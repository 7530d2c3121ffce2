// Subset partitions and visiting orders of the reconstruction layer.
#include "compute/pet/subsets.hpp"

#include <algorithm>
#include <numeric>
#include <random>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::pet {

std::vector<int> subset_sequence(int subsets, SubsetOrder order, std::uint64_t seed, int iteration) {
  if (subsets < 1) throw Error(str_cat("pet: ", subsets, " subsets"));
  std::vector<int> out(subsets);
  std::iota(out.begin(), out.end(), 0);
  if (order == SubsetOrder::bit_reversed) {
    int bits = 0;
    while ((1 << bits) < subsets) ++bits;
    out.clear();
    for (int i = 0; i < (1 << bits); ++i) {
      int r = 0;
      for (int b = 0; b < bits; ++b)
        if (i & (1 << b)) r |= 1 << (bits - 1 - b);
      if (r < subsets) out.push_back(r);
    }
  } else if (order == SubsetOrder::random) {
    // std::mt19937_64 is specified bit for bit; the shuffle is our own Fisher–Yates so the order
    // is the same with every standard library.
    std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(iteration));
    for (int i = subsets - 1; i > 0; --i) std::swap(out[i], out[rng() % static_cast<std::uint64_t>(i + 1)]);
  }
  return out;
}

InterleavedSubsets interleave_events(std::size_t count, int subsets) {
  if (subsets < 1) throw Error(str_cat("pet: ", subsets, " subsets"));
  const std::size_t S = static_cast<std::size_t>(subsets);
  InterleavedSubsets r;
  r.order.reserve(count);
  r.starts.push_back(0);
  for (std::size_t k = 0; k < S; ++k) {
    for (std::size_t i = k; i < count; i += S) r.order.push_back(i);
    r.starts.push_back(r.order.size());
  }
  return r;
}

std::vector<int> angular_subsets(std::span<const double> azimuth, std::span<const int> group, int subsets) {
  if (subsets < 1) throw Error(str_cat("pet: ", subsets, " subsets"));
  if (!group.empty() && group.size() != azimuth.size()) throw Error("pet: angular subsets need one group per LOR");
  const std::size_t n = azimuth.size();
  std::vector<std::size_t> rank(n);
  std::iota(rank.begin(), rank.end(), 0);
  std::stable_sort(rank.begin(), rank.end(), [&](std::size_t a, std::size_t b) {
    if (azimuth[a] != azimuth[b]) return azimuth[a] < azimuth[b];
    return !group.empty() && group[a] < group[b];
  });
  const std::size_t groups = 4 * static_cast<std::size_t>(subsets);
  std::vector<int> out(n, 0);
  for (std::size_t r = 0; r < n; ++r) out[rank[r]] = static_cast<int>((r * groups / std::max<std::size_t>(n, 1)) % subsets);
  return out;
}

}  // namespace tomo::pet
