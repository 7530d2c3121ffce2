// The glpet `gl-compute` backend's own check beyond the backend contract
// (projector_contract.hpp): its correspondence images have exactly the cpu's lines
// (double-precision geometry) on the small system with three pairs.
#include <gtest/gtest.h>

#include <cstdio>

#include "compute/glpet/cpu_projector.hpp"
#include "tests/glpet/gl_fixtures.hpp"
#include "tests/support/gl_test.hpp"

namespace tomo::glpet {
namespace {

using test::rel_l2;

TEST(GlComputeGlpet, CorrespondenceImagesHaveTheCpuLines) {
  tomo::test::gl_context();
  // Generic probes, plus mid-plane samples whose lines hit detector edges exactly (ties
  // that double-precision geometry decides as the cpu does).
  auto probes = test::probe_points();
  for (const Vec3& v : std::vector<Vec3>{{0.5, 0.5, 0}, {1.5, -2.5, 0}, {-6.5, 3.5, 0}}) probes.push_back(v);
  const auto [lines, differ, wmax] = test::correspondence_agreement("gl-compute", probes);
  std::printf("gl-compute correspondence: %zu lines, %zu differ, max weight rel. diff %.3g\n", lines, differ, wmax);
  EXPECT_GT(lines, 1000u);
  EXPECT_EQ(differ, 0u);  // double-precision geometry: the cpu's secondary detectors
  EXPECT_LT(wmax, 1e-5);
}

}  // namespace
}  // namespace tomo::glpet
