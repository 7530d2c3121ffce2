// oat's host-memory estimate (compute/oat/memory.hpp): 24 double volumes, and 6 double data
// vectors of Q·(K + 2) samples for simulated data only, with the keys that size them.
#include <gtest/gtest.h>

#include "compute/oat/memory.hpp"
#include "tests/oat/small_geometry.hpp"

namespace tomo::oat::test {

TEST(OatMemory, CountsVolumesAndSimulatedData) {
  OatConfig c;
  c.geometry = small_geometry(10, 1.0, 2, 2, 20.0, 5.0);
  const double K = c.geometry.time.samples;
  const double volumes = 24.0 * 8 * 1000, data = 6.0 * 8 * 4 * (K + 2);
  EXPECT_EQ(estimate_memory(c).bytes, volumes + data);
  c.source = DataSource::npy;  // read data: the file's size, not counted here
  EXPECT_EQ(estimate_memory(c).bytes, volumes);
}

}  // namespace tomo::oat::test
