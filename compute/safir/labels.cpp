// Host labelling and counting sort by label.
#include "compute/safir/labels.hpp"

namespace tomo::safir {

std::vector<std::uint8_t> label_events(std::span<const Event> events, const Scanner& scanner, const ImageBox& box) {
  const auto pos = scanner.positions();
  const BoxParams<double> g = box.params<double>();
  std::vector<std::uint8_t> labels(events.size());
  const std::size_t n = pos.size();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(events.size()); ++i) {
    const Event e = events[i];
    labels[i] = e.a < n && e.b < n ? static_cast<std::uint8_t>(label_line(pos[e.a].data(), pos[e.b].data(), g))
                                   : std::uint8_t{kLabelSkip};
  }
  return labels;
}

SortedEvents sort_by_label(std::span<const Event> events, std::span<const std::uint8_t> labels) {
  std::array<std::size_t, kLabelCount> count{};
  for (std::uint8_t l : labels) ++count[l < kLabelCount ? l : 0];
  SortedEvents s;
  s.offsets[0] = s.offsets[1] = 0;  // label 0 is dropped
  for (int l = 1; l < kLabelCount; ++l) s.offsets[l + 1] = s.offsets[l] + count[l];
  s.events.resize(s.offsets[4]);
  s.order.resize(s.offsets[4]);
  std::array<std::size_t, kLabelCount> next{};
  for (int l = 1; l < kLabelCount; ++l) next[l] = s.offsets[l];
  for (std::size_t i = 0; i < events.size(); ++i) {
    const std::uint8_t l = labels[i];
    if (l == kLabelSkip || l >= kLabelCount) continue;
    s.events[next[l]] = events[i];
    s.order[next[l]++] = static_cast<std::uint32_t>(i);
  }
  return s;
}

}  // namespace tomo::safir
