// strip's host-memory estimate.
#include "compute/strip/memory.hpp"

#include "compute/core/log.hpp"

namespace tomo::strip {

MemoryEstimate estimate_memory(const StripConfig& c) {
  MemoryEstimate e;
  if (c.events_file.empty()) {
    e.key("strip.events", str_cat(c.events));
    e.add(2, double(sizeof(Event)) * double(c.events), "event lists", "strip.events");
  }
  e.key("strip.n_y/n_z", str_cat(c.geometry.n_y, "/", c.geometry.n_z));
  e.add(6, 8.0 * c.geometry.n_y * c.geometry.n_z, "double images", "strip.n_y/n_z");
  return e;
}

}  // namespace tomo::strip
