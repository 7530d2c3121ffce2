// Labelling and sorting of events by predominant direction ([Locans2017] §5.3.1) on the host: the
// reference the GPU sort (CUB radix sort by key) is tested against, and the cpu/gl-compute path.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "compute/safir/scanner.hpp"

namespace tomo::safir {

std::vector<std::uint8_t> label_events(std::span<const Event> events, const Scanner& scanner, const ImageBox& box);

// The events of labels 1..3 grouped by label in ascending order, the order within a label kept
// (a stable sort by key); `order[i]` is the index in `events` of sorted event i; label-0 events
// are left out. `offsets[l]` is the first sorted event of label l (offsets[4] = count).
struct SortedEvents {
  std::vector<Event> events;
  std::vector<std::uint32_t> order;
  std::array<std::size_t, 5> offsets{};
};
SortedEvents sort_by_label(std::span<const Event> events, std::span<const std::uint8_t> labels);

}  // namespace tomo::safir
