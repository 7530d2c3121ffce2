// demo's host-memory estimate: the volumes and the cpu backend's slab, in bytes.
#include <gtest/gtest.h>

#include "compute/core/error.hpp"
#include "compute/demo/memory.hpp"

namespace tomo::demo {

TEST(DemoMemory, VolumesAndOneSlab) {
  const Grid3 grid = Grid3::centred({10, 20, 30}, {1.0, 1.0, 1.0});
  const MemoryEstimate e = estimate_memory(grid, 8, 2);
  EXPECT_EQ(e.bytes, 2 * 4 * 6000 + 4 * 200 * 8);
  EXPECT_EQ(e.largest_key, "demo.size");
  EXPECT_EQ(estimate_memory(grid, 64, 1).bytes, 4 * 6000 + 4 * 6000);  // a slab deeper than the grid
  EXPECT_THROW(require_host_memory(e, "demo", 1000.0), InputError);
}

}  // namespace tomo::demo
