// glpet geometry: line-set conventions, the raster camera against the line set,
// sample offsets, and the Siddon traversal against exact chords.
#include <gtest/gtest.h>

#include <cmath>

#include "compute/glpet/camera.hpp"
#include "compute/glpet/line_set.hpp"
#include "compute/glpet/siddon.hpp"
#include "tests/glpet/small_system.hpp"

namespace tomo::glpet {
namespace {

TEST(GlpetGeometry, PrimaryIsTheFartherModuleAndAtlasUsesFirstModule) {
  auto sys = test::small_system();
  const ModulePair& pair = sys.scanner.pairs[0];
  EXPECT_EQ(primary_module(pair, {0, 0, -10}), 1);  // nearer to module 0 (z = −40)
  EXPECT_EQ(primary_module(pair, {0, 0, 10}), 0);
  // A line through v = (0,0,±10) along +z hits the same two detectors either way: the
  // LOR texel must not depend on which module was primary.
  for (double z : {-10.0, 10.0}) {
    const Correspondence c(pair, {1.0, 1.0, z}, sys.R);
    // Pixel whose centre lies straight above/below v at (1.0, 1.0): X = (1 + 16)/2 − 0.5.
    const Line L = c.trace(8, 8, nullptr, 1);
    ASSERT_TRUE(L.hit);
    EXPECT_EQ(L.lor, pair.lor_index(4, 4, 4, 4)) << "z=" << z;
  }
}

TEST(GlpetGeometry, RasterCameraMapsSecondaryHitsToTheirPixels) {
  // Non-parallel modules: the camera generalises the paper's α rotation.
  ModulePair pair{{test::plane_module(-40, 1), test::plane_module(40, -1)}};
  Module& m = pair.modules[1];
  const double a = 0.3;  // tilt module 1 about x
  m.normal = {0, std::sin(a), -std::cos(a)};
  m.axis_t = {0, std::cos(a), std::sin(a)};
  for (const Vec3& v : {Vec3{3, -2, 5}, Vec3{-4, 6, -12}}) {
    const RasterCamera cam = raster_camera(pair, v, 2);
    const Correspondence c(pair, v, 2);
    EXPECT_EQ(cam.primary, c.primary);
    int checked = 0;
    for (int Y = 0; Y < c.height; ++Y)
      for (int X = 0; X < c.width; ++X) {
        const Line L = c.trace(X, Y, nullptr, 1);
        if (!L.hit) continue;
        const auto clip = transform(cam.view_projection, L.y2);
        ASSERT_GT(clip[3], 0);
        const double px = (clip[0] / clip[3] + 1) * 0.5 * cam.width, py = (clip[1] / clip[3] + 1) * 0.5 * cam.height;
        EXPECT_NEAR(px, X + 0.5, 1e-9);
        EXPECT_NEAR(py, Y + 0.5, 1e-9);
        EXPECT_LE(std::fabs(clip[2] / clip[3]), 1.0);
        const Vec3 y1 = add(cam.pixel_origin, add(scale(cam.pixel_du, X + 0.5), scale(cam.pixel_dv, Y + 0.5)));
        EXPECT_NEAR(norm(sub(y1, L.y1)), 0, 1e-12);
        ++checked;
      }
    EXPECT_GT(checked, 100);
  }
}

TEST(GlpetGeometry, SampleOffsetsStayInsideTheVoxel) {
  EXPECT_EQ(sample_offsets(1).size(), 1u);
  EXPECT_EQ(sample_offsets(1)[0], (Vec3{0, 0, 0}));
  const auto o = sample_offsets(64);
  Vec3 mean{0, 0, 0};
  for (const Vec3& p : o)
    for (int a = 0; a < 3; ++a) {
      EXPECT_GE(p[a], -0.5);
      EXPECT_LT(p[a], 0.5);
      mean[a] += p[a] / 64;
    }
  for (double m : mean) EXPECT_NEAR(m, 0, 0.02);  // low discrepancy: well balanced
}

TEST(GlpetGeometry, SiddonMatchesExactChordsInAUniformBox) {
  VolumeF f(Grid3::centred({10, 12, 14}, {1.0, 1.5, 2.0}), 0.5f);  // box 10 × 18 × 28 mm
  // Along x through the box: 10 mm.
  EXPECT_NEAR(siddon_line_integral(f, {-20, 0.3, 0.1}, {20, 0.3, 0.1}), 5.0, 1e-12);
  // Oblique line, chord length from slab clipping.
  const Vec3 a{-11, -12, -17}, b{9, 13, 16};
  double t0 = 0, t1 = 1;
  const double lo[3] = {-5, -9, -14}, hi[3] = {5, 9, 14};
  for (int ax = 0; ax < 3; ++ax) {
    double ta = (lo[ax] - a[ax]) / (b[ax] - a[ax]), tb = (hi[ax] - a[ax]) / (b[ax] - a[ax]);
    t0 = std::max(t0, std::min(ta, tb));
    t1 = std::min(t1, std::max(ta, tb));
  }
  EXPECT_NEAR(siddon_line_integral(f, a, b), 0.5 * (t1 - t0) * norm(sub(b, a)), 1e-9);
  // A step volume: only the x ≥ 0 half carries 2.0.
  for (int k = 0; k < 14; ++k)
    for (int j = 0; j < 12; ++j)
      for (int i = 0; i < 10; ++i) f.at(i, j, k) = i >= 5 ? 2.0f : 0.0f;
  EXPECT_NEAR(siddon_line_integral(f, {-20, 1, 1}, {20, 1, 1}), 10.0, 1e-12);
  EXPECT_NEAR(siddon_line_integral(f, {20, 1, 1}, {-20, 1, 1}), 10.0, 1e-12);
  EXPECT_NEAR(siddon_line_integral(f, {2, 1, 1}, {3.5, 1, 1}), 3.0, 1e-12);  // segment inside
  EXPECT_EQ(siddon_line_integral(f, {-20, 30, 1}, {20, 30, 1}), 0.0);      // misses
}

TEST(GlpetGeometry, TransmissionOfAUniformSlabMatchesBeerLambert) {
  // σ = 0.01/mm in a 16³ × 2 mm cube; a line along z through the middle sees 32 mm of it
  // (trilinear ramps at both faces integrate to the same 32 mm: half a voxel in, half out).
  auto sys = test::small_system(16, 2.0, 2, 400);
  for (float& s : sys.sigma_t.data) s = 0.01f;
  const Extinction ext(sys.sigma_t);
  const double T = ext.transmission({0.5, 0.5, -40}, {0.5, 0.5, 40}, 400);
  EXPECT_NEAR(T, std::exp(-0.32), 2e-4);
  EXPECT_DOUBLE_EQ(Extinction(VolumeF(sys.grid, 0.0f)).transmission({0, 0, -40}, {0, 0, 40}, 8), 1.0);
}

}  // namespace
}  // namespace tomo::glpet
