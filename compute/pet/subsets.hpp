// Ordered subsets of the data ([Hudson1994]): which events or LORs form subset k, and the order
// the subsets are visited in within an iteration.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "compute/core/enum_name.hpp"

namespace tomo::pet {

// <problem>.subset_order.
enum class SubsetOrder {
  sequential,    // 0, 1, …, S−1
  bit_reversed,  // 0, S/2, S/4, 3S/4, …: consecutive subsets far apart (the order of [Hudson1994] §III)
  random,        // a new permutation every iteration, from the seed and the iteration number
};
inline constexpr std::array<EnumName<SubsetOrder>, 3> kSubsetOrderNames{
    {{"sequential", SubsetOrder::sequential}, {"bit-reversed", SubsetOrder::bit_reversed}, {"random", SubsetOrder::random}}};

// The subsets of iteration `iteration` (1-based) in the order they are visited.
std::vector<int> subset_sequence(int subsets, SubsetOrder order, std::uint64_t seed, int iteration);

// List mode: event i of a window belongs to subset i mod S (interleaved in acquisition order, so
// every subset spans the whole acquisition). The permutation that makes each subset contiguous:
// order[p] is the window index of the p-th event of the reordered window; subset k is
// [starts[k], starts[k+1]).
struct InterleavedSubsets {
  std::vector<std::size_t> order;
  std::vector<std::size_t> starts;  // S + 1 entries
};
InterleavedSubsets interleave_events(std::size_t count, int subsets);

// LOR subsets by angle: LORs are ranked by their transaxial azimuth φ ∈ [0, π) (ties: by
// `group`, the module pair, then by index), the ranking is cut into 4·S groups of equal size and
// group g goes to subset g mod S, so every subset holds four angular sectors spread over the
// half turn (and the module pairs that see them). Returns the subset of each LOR.
std::vector<int> angular_subsets(std::span<const double> azimuth, std::span<const int> group, int subsets);

}  // namespace tomo::pet
