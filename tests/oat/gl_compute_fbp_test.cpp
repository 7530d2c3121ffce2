// The gl-compute FBP read both ways (oat.fbp.read = texture | shared; llvmpipe here, NVIDIA on
// the GPU machine) equal to the cpu (double) on simulated blurred spheres, also where the grid is
// not a multiple of the 8×8×16 workgroup box and the transducers sit close to the grid (curved,
// wide windows, a tile left half full); automatic picks shared on hardware GL and texel fetches on
// software GL; ldg is refused as cuda's.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/oat/model.hpp"
#include "compute/oat/phantom.hpp"
#include "tests/oat/gpu_checks.hpp"
#include "tests/oat/small_geometry.hpp"
#include "tests/support/gl_test.hpp"

namespace tomo::oat::test {

class OatGlComputeFbp : public ::testing::Test {
 protected:
  void SetUp() override { (void)tomo::test::gl_context(); }
};

// 13 × 11 × 19 voxels of 0.5 mm (partial boxes), 5 × 9 transducers on a 9.13 mm sphere (the grid's
// corners at 6 mm), 19 MHz: windows of 128 samples, tiles of 16 (the last one 13 full). Radius and
// rate avoid voxels at an integer k̃ from many transducers (at 9 mm and 20 MHz the centre voxel
// has k̃ = 69 from all, where fp64 rounding alone picks the sample, on every backend alike).
OatGeometry close_geometry() {
  OatGeometry g;
  g.grid = Grid3::centred({13, 11, 19}, {0.5, 0.5, 0.5});
  set_rings_views(g, 5, 9, 9.13);
  g.c0_mm_per_us = 1.5;
  g.gruneisen = 0.8;
  g.time = covering_time_axis(g, 19.0, 1.0);
  return g;
}

// The gl-compute image read `how`, against the cpu's; returns the backend's description.
std::string check_read(const OatGeometry& g, FbpRead how, const char* what) {
  OatPhantom ph;
  ph.spheres = {{{1.0, -0.5, 0.5}, 1.5, 1.0, 0.3}, {{-1.5, 1.0, -1.0}, 1.0, 2.0, 0.25}};
  const auto p = simulate_pressure(g, ph, Noise{});
  FbpOptions o;
  o.read = how;
  std::vector<double> ref(g.grid.count()), got(g.grid.count());
  auto cpu = BackendRegistry<Fbp>::instance().create("cpu");
  cpu->configure(g, o);
  cpu->reconstruct(p, ref);
  auto op = BackendRegistry<Fbp>::instance().create("gl-compute");
  op->configure(g, o);
  op->reconstruct(p, got);
  const double e = relative_l2(got, ref);
  std::printf("%s: gl-compute fbp read %s: rel. L2 vs cpu %.3g (%s)\n", what,
              std::string(enum_name(kFbpReadNames, how)).c_str(), e, op->describe().c_str());
  EXPECT_LT(e, kFbpExactTolerance) << enum_name(kFbpReadNames, how);
  return op->describe();
}

TEST_F(OatGlComputeFbp, BothReadsEqualCpu) {
  const OatGeometry g = small_geometry(16, 0.75, 8, 16, 30.0, 10.0);
  check_read(g, FbpRead::texture, "16^3 x 0.75 mm, 8x16 on 30 mm");
  check_read(g, FbpRead::shared, "16^3 x 0.75 mm, 8x16 on 30 mm");
}

TEST_F(OatGlComputeFbp, SharedWindowsHoldOnPartialBoxesAndCloseTransducers) {
  const OatGeometry g = close_geometry();
  check_read(g, FbpRead::texture, "13x11x19 x 0.5 mm, 5x9 on 9.13 mm, 19 MHz");
  check_read(g, FbpRead::shared, "13x11x19 x 0.5 mm, 5x9 on 9.13 mm, 19 MHz");
  // automatic: shared on hardware GL, texel fetches on software GL (faster there).
  const bool software = tomo::test::gl_context().info().caps.max_loop_iterations > 0;
  EXPECT_EQ(check_read(g, FbpRead::automatic, "13x11x19 x 0.5 mm, 5x9 on 9.13 mm, 19 MHz").find("shared memory") ==
                std::string::npos,
            software);
}

TEST_F(OatGlComputeFbp, LdgIsRefused) {
  FbpOptions o;
  o.read = FbpRead::ldg;
  auto op = BackendRegistry<Fbp>::instance().create("gl-compute");
  EXPECT_THROW(op->configure(small_geometry(8, 1.0, 2, 4, 20.0, 5.0), o), UnavailableError);
}

}  // namespace tomo::oat::test
