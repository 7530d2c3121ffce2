// fdk's field-of-view mask (the phantom metrics' voxels, the largest part of a 1024³ run's wall
// time) found per column: the same mask, voxel for voxel, as testing every voxel against every
// projection, on geometries whose field of view ends inside the grid in x, y and z.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "compute/fdk/geometry.hpp"
#include "compute/fdk/metrics.hpp"

namespace tomo::fdk {
namespace {

std::vector<std::uint8_t> every_voxel(const Grid3& g, const std::vector<Mat34>& ms, int sx, int sy) {
  std::vector<std::uint8_t> m(g.count(), 0);
  for (int k = 0; k < g.dims[2]; ++k)
    for (int j = 0; j < g.dims[1]; ++j)
      for (int i = 0; i < g.dims[0]; ++i) {
        const auto c = g.centre(i, j, k);
        bool in = true;
        for (const Mat34& A : ms) {
          const auto p = A.project(c[0], c[1], c[2]);
          in = in && p.w > 0 && p.u >= 0 && p.u <= sx - 1 && p.v >= 0 && p.v <= sy - 1;
        }
        m[g.index(i, j, k)] = in;
      }
  return m;
}

void expect_same_mask(const CArmGeometry& carm, const Grid3& g, const char* what) {
  const auto ms = carm.matrices();
  const auto t0 = std::chrono::steady_clock::now();
  const auto fast = fov_mask(g, ms, carm.sx, carm.sy);
  const auto t1 = std::chrono::steady_clock::now();
  const auto ref = every_voxel(g, ms, carm.sx, carm.sy);
  const auto t2 = std::chrono::steady_clock::now();
  std::size_t inside = 0, differ = 0;
  for (std::size_t v = 0; v < ref.size(); ++v) inside += ref[v], differ += ref[v] != fast[v];
  std::printf("%s: %zu of %zu voxels inside, %zu differ; %.1f ms vs %.1f ms every voxel\n", what, inside, ref.size(),
              differ, std::chrono::duration<double, std::milli>(t1 - t0).count(),
              std::chrono::duration<double, std::milli>(t2 - t1).count());
  EXPECT_EQ(differ, 0u) << what;
  EXPECT_GT(inside, ref.size() / 10) << what;  // both parts present: the test sees the boundary
  EXPECT_LT(inside, ref.size()) << what;
}

CArmGeometry small(int views, double arc_deg) {
  CArmGeometry c;
  c.projections = views;
  c.arc_deg = arc_deg;
  c.sx = 156;
  c.sy = 120;
  c.pixel_mm = 2.56;  // RabbitCT's detector at an eighth of its pixels
  return c;
}

TEST(FdkFovMask, PerColumnEqualsEveryVoxel) {
  // RabbitCT's geometry on a grid wider and taller than the field of view.
  expect_same_mask(small(62, 200.0), Grid3::centred({48, 48, 48}, {6.0, 6.0, 6.0}), "rabbitct 200 deg");
  // A short arc, an odd grid off the axes' symmetry, anisotropic voxels.
  expect_same_mask(small(31, 120.0), Grid3::centred({37, 41, 29}, {7.0, 6.5, 9.0}), "120 deg, odd grid");
  // A tilted detector and a shifted principal point: w and v depend on z differently per view.
  CArmGeometry t = small(40, 360.0);
  t.roll_deg = 4.0;
  t.pitch_deg = -3.0;
  t.yaw_deg = 2.0;
  t.principal_u = 60.0;
  t.principal_v = 70.0;
  expect_same_mask(t, Grid3::centred({40, 40, 44}, {6.0, 6.0, 7.0}), "tilted, shifted");
  // Voxel centres exactly on the grid's axes and a grid of one slice.
  expect_same_mask(small(62, 200.0), Grid3::centred({49, 49, 1}, {6.0, 6.0, 6.0}), "one slice");
}

}  // namespace
}  // namespace tomo::fdk
