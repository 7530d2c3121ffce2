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
#include "tests/oat/fbp_checks.hpp"
#include "tests/oat/gpu_checks.hpp"
#include "tests/oat/small_geometry.hpp"
#include "tests/support/gl_test.hpp"

namespace tomo::oat::test {

class OatGlComputeFbp : public ::testing::Test {
 protected:
  void SetUp() override { (void)tomo::test::gl_context(); }
};

// The gl-compute image read `how`, against the cpu's; returns the backend's description.
std::string check_read(const FbpCase& c, FbpRead how, const char* what) {
  FbpOptions o;
  o.read = how;
  std::vector<double> got(c.g.grid.count());
  auto op = BackendRegistry<Fbp>::instance().create("gl-compute");
  op->configure(c.g, o);
  op->reconstruct(c.p, got);
  const double e = relative_l2(got, c.ref);
  std::printf("%s: gl-compute fbp read %s: rel. L2 vs cpu %.3g (%s)\n", what,
              std::string(enum_name(kFbpReadNames, how)).c_str(), e, op->describe().c_str());
  EXPECT_LT(e, kFbpExactTolerance) << enum_name(kFbpReadNames, how);
  return op->describe();
}

TEST_F(OatGlComputeFbp, BothReadsEqualCpu) {
  const FbpCase c = make_fbp_case(small_geometry(16, 0.75, 8, 16, 30.0, 10.0));
  check_read(c, FbpRead::texture, "16^3 x 0.75 mm, 8x16 on 30 mm");
  check_read(c, FbpRead::shared, "16^3 x 0.75 mm, 8x16 on 30 mm");
}

TEST_F(OatGlComputeFbp, SharedWindowsHoldOnPartialBoxesAndCloseTransducers) {
  const FbpCase c = make_fbp_case(close_geometry(5, 9));
  check_read(c, FbpRead::texture, "13x11x19 x 0.5 mm, 5x9 on 9.13 mm, 19 MHz");
  check_read(c, FbpRead::shared, "13x11x19 x 0.5 mm, 5x9 on 9.13 mm, 19 MHz");
  // automatic: shared on hardware GL, texel fetches on software GL (faster there).
  const bool software = tomo::test::gl_context().info().caps.max_loop_iterations > 0;
  EXPECT_EQ(check_read(c, FbpRead::automatic, "13x11x19 x 0.5 mm, 5x9 on 9.13 mm, 19 MHz").find("shared memory") ==
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
