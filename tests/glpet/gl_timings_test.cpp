// gl_pass_timings() (what bench/glpet_bench.cpp reports for the GL passes) runs every
// pass of both GL backends and counts their work; timings are asserted only to be there.
#include <gtest/gtest.h>

#include <map>

#include "compute/glpet/crosscheck.hpp"
#include "bench/gl/gl_pass_timings.hpp"
#include "tests/glpet/gl_fixtures.hpp"
#include "tests/support/gl_test.hpp"

namespace tomo::glpet {
namespace {

TEST(GlTimingsGlpet, ReportsEveryPassOfBothBackends) {
  tomo::test::gl_context();
  const SystemModel sys = test::attenuating_system(6, 2, 8);
  const auto x = test::test_image(sys);
  const auto y = test::test_lors(sys);
  const auto rows = gl_pass_timings(sys, x, y, 1);
  std::map<std::string, const GlPassTiming*> by;
  for (const auto& r : rows) by[r.backend + "/" + r.pass] = &r;
  for (const char* k : {"gl/correspondence", "gl/correspondence_hw", "gl/atlas", "gl/terms", "gl/reduction", "gl/collect", "gl/forward",
                        "gl/back_ratio", "gl/sensitivity", "gl/update", "gl-compute/forward", "gl-compute/back_ratio",
                        "gl-compute/sensitivity", "gl-compute/update"})
    ASSERT_TRUE(by.count(k)) << k;
  const double lines = 216.0 * 16 * 16;  // 6³ voxels × (R·N_a)²
  EXPECT_DOUBLE_EQ(by["gl/atlas"]->work, lines);
  EXPECT_DOUBLE_EQ(by["gl-compute/forward"]->work, lines);
  // 16×16 → 8×8 → 4×4 → 2×2 → 1×1 reads 16·(256+64+16+4) bytes per voxel.
  EXPECT_DOUBLE_EQ(by["gl/reduction"]->work, 216.0 * 16 * 340);
  // The raster passes' device times come from the bench's observer: a pass it never saw reads 0.
  for (const char* k : {"gl/correspondence", "gl/correspondence_hw", "gl/atlas", "gl/terms", "gl/reduction", "gl/collect"})
    EXPECT_GT(by[k]->ms, 0.0) << k;
  for (const auto& r : rows) {
    EXPECT_GE(r.ms, 0.0) << r.backend << "/" << r.pass;
    std::printf("%-10s %-14s %9.3f ms  %10.3g %s\n", r.backend.c_str(), r.pass.c_str(), r.ms, r.work, r.unit.c_str());
  }
}

// gl_pass_timings over a voxel range (what the bench uses to time part of a 128³ grid; the
// restrict_voxels contract itself is in projector_contract.hpp): the work counts the range.
TEST(GlTimingsGlpet, VoxelRangeProjectsOnlyThoseVoxels) {
  tomo::test::gl_context();
  const SystemModel sys = test::attenuating_system(6, 2, 8);
  const auto x = test::test_image(sys);
  const auto z = test::test_lors(sys);
  const std::size_t first = 36 * 2, count = 36 * 3;  // z-slices 2..4 of 6³
  const auto rows = gl_pass_timings(sys, x, z, 1, {"gl", "gl-compute"}, first, count);
  for (const auto& r : rows) {
    if (r.pass == "forward") {
      EXPECT_DOUBLE_EQ(r.work, double(count) * 16 * 16) << r.backend;
    }
  }
}

}  // namespace
}  // namespace tomo::glpet
