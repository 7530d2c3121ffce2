// The sensitivity's pair list written out independently of the operators: every ordered pair
// (a, b ≠ a) of each a in `first`, b increasing — what ListModeOperator::set_pair_events makes —
// and the case the tests make it for.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "compute/safir/scanner.hpp"

namespace tomo::safir::test {

inline std::vector<Event> pair_list(std::span<const std::uint32_t> first, std::uint32_t crystal_count) {
  std::vector<Event> pairs;
  for (const std::uint32_t a : first)
    for (std::uint32_t b = 0; b < crystal_count; ++b)
      if (b != a) pairs.push_back({a, b});
  return pairs;
}

// A 5-ring scanner, a small box and first crystals at both ends of the id range.
struct PairCase {
  Scanner scanner;
  ImageBox box;
  std::vector<std::uint32_t> first;
};
inline PairCase pair_case() {
  PairCase c;
  c.scanner.rings = 5;
  c.box.n = {30, 30, 8};
  const std::uint32_t n = c.scanner.crystal_count();
  c.first = {0, 1, 7, n / 2, n - 2, n - 1};
  return c;
}

}  // namespace tomo::safir::test
