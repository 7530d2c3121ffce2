// safir's host-memory estimate.
#include "compute/safir/memory.hpp"

#include <algorithm>
#include <cmath>

#include "compute/core/log.hpp"

namespace tomo::safir {

std::size_t expected_frames(const SafirConfig& c) {
  if (c.frame_s <= 0) return 1;
  return static_cast<std::size_t>(std::max(1.0, std::ceil(c.simulation.duration_s / c.frame_s - 1e-9)));
}

MemoryEstimate estimate_memory(const SafirConfig& c, std::size_t frames) {
  MemoryEstimate e;
  if (c.events_file.empty()) {
    e.key("safir.events", str_cat(c.simulation.events));
    e.add(2, 16.0 * double(c.simulation.events), "event lists", "safir.events");
  }
  const double image = 8.0 * double(c.box.count());
  e.key("safir.image", str_cat(c.box.n[0], "x", c.box.n[1], "x", c.box.n[2]));
  // Per frame: the image and the significance map (doubles), and the float copy of one of
  // them that the 4D NIfTI writer assembles (half an image).
  if (frames > 1) {
    e.key("safir.frame_s", str_cat(c.frame_s, " (", frames, " frames)"));
    e.add(2.5 * double(frames), image, "frame images", "safir.frame_s");
  } else {
    e.add(2.5, image, "frame images", "safir.image");
  }
  e.add(8, image, "working images", "safir.image");
  return e;
}

}  // namespace tomo::safir
