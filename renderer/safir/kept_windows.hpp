// The safir gl-compute backend's kept event windows: a window that is part of the list (an OSEM
// subset) keeps its sorted events, GL buffers and tile plan when another window replaces it, so
// that its next visit labels, sorts and uploads nothing. At most 256 windows and at most as many
// kept events as the list holds (a frame's subsets fit exactly); one that does not fit empties
// the store first. The twin of cuda/safir/window_cache.hpp.
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

#include "compute/safir/kernel_math.hpp"
#include "compute/safir/labels.hpp"
#include "renderer/gl/objects.hpp"

namespace tomo::safir {

struct GlWindow {
  std::size_t first = 0, count = 0;
  SortedEvents sorted;
  gl::Buffer events, values, records;
  TilePlan plan;
  bool values_zero = false;  // values (ȳ) is all zeros (left so by the update)
};

class KeptWindows {
 public:
  static constexpr std::size_t kMaxWindows = 256;

  void clear() {
    kept_.clear();
    events_ = 0;
  }
  // Keeps `w` where it is part of a list of `total` events (not empty, not the whole list).
  void keep(GlWindow&& w, std::size_t total) {
    if (w.count == 0 || w.count >= total) return;
    if (kept_.size() >= kMaxWindows || events_ + w.count > total) clear();
    events_ += w.count;
    kept_.push_back(std::move(w));
  }
  // The kept window [first, first + count), handed back and no longer kept; none where absent.
  std::optional<GlWindow> take(std::size_t first, std::size_t count) {
    for (auto it = kept_.begin(); it != kept_.end(); ++it)
      if (it->first == first && it->count == count) {
        GlWindow w = std::move(*it);
        kept_.erase(it);
        events_ -= count;
        return w;
      }
    return std::nullopt;
  }

 private:
  std::vector<GlWindow> kept_;
  std::size_t events_ = 0;
};

}  // namespace tomo::safir
