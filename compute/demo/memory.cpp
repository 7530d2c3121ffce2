// demo's host-memory estimate (see memory.hpp).
#include "compute/demo/memory.hpp"

#include <algorithm>

#include "compute/core/log.hpp"

namespace tomo::demo {

MemoryEstimate estimate_memory(const Grid3& grid, int slab, int volumes) {
  const auto& n = grid.dims;
  MemoryEstimate e;
  e.key("demo.size", str_cat("[", n[0], ", ", n[1], ", ", n[2], "]"));
  const double plane = double(n[0]) * n[1];
  e.add(volumes, 4 * plane * n[2], "float volumes", "demo.size");
  e.add(1, 4 * plane * std::min(slab, n[2]), "float slab", "demo.slab");
  return e;
}

}  // namespace tomo::demo
