// The orbit's turn symmetry that B's symmetric gather relies on (compute/fdk/orbit_symmetry.hpp):
// found on full circles of equally spaced views about a centred grid, its claimed voxel maps and
// scales checked point by point with the matrices themselves, and refused where it does not hold.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "compute/core/volume.hpp"
#include "compute/fdk/geometry.hpp"
#include "compute/fdk/orbit_symmetry.hpp"
#include "compute/fdk/ray_model.hpp"

using namespace tomo::fdk;
using tomo::Grid3;

namespace {

CArmGeometry circle(int views) {
  CArmGeometry c;
  c.projections = views;
  c.arc_deg = 360.0 * (views - 1) / views;  // N equally spaced views over the whole turn
  c.sx = 96;
  c.sy = 80;
  c.pixel_mm = 1.6;
  return c;
}

std::vector<std::array<double, 12>> signed_matrices(const Grid3& g, const std::vector<Mat34>& m) {
  std::vector<std::array<double, 12>> p(m.size());
  for (std::size_t n = 0; n < m.size(); ++n) p[n] = voxel_view(g, m[n], static_cast<int>(n)).p;
  return p;
}

struct Proj {
  double u, v, t;
};
Proj project(const std::array<double, 12>& p, const Grid3& g, int i, int j, int k) {
  const auto x = g.centre(i, j, k);
  const double t = p[8] * x[0] + p[9] * x[1] + p[10] * x[2] + p[11];
  return {(p[0] * x[0] + p[1] * x[1] + p[2] * x[2] + p[3]) / t, (p[4] * x[0] + p[5] * x[1] + p[6] * x[2] + p[7]) / t, t};
}

// The voxel map of the turn (orbit_symmetry.hpp): half turn, or a quarter of the given sense.
std::array<int, 2> turned(const Grid3& g, int order, int sense, int i, int j) {
  if (order == 2) return {g.dims[0] - 1 - i, g.dims[1] - 1 - j};
  return sense > 0 ? std::array<int, 2>{g.dims[0] - 1 - j, i} : std::array<int, 2>{j, g.dims[0] - 1 - i};
}

// View n + r·N/order sees voxel X where view n sees S^r·X, with t scaled by the found c.
void expect_symmetric(const Grid3& g, const std::vector<std::array<double, 12>>& p, const OrbitSymmetry& s) {
  const int N = static_cast<int>(p.size()), step = N / s.order;
  ASSERT_EQ(s.scale.size(), p.size());
  int checked = 0;
  for (int n = 0; n < step; n += 3)
    for (int r = 1; r < s.order; ++r)
      for (const auto& ij : {std::array<int, 2>{0, 0}, {3, 11}, {g.dims[0] - 1, 5}, {7, g.dims[1] - 2}})
        for (int k : {0, g.dims[2] - 1}) {
          std::array<int, 2> q = ij;
          for (int e = 0; e < r; ++e) q = turned(g, s.order, s.sense, q[0], q[1]);
          const int m = n + r * step;
          const Proj a = project(p[m], g, ij[0], ij[1], k), b = project(p[n], g, q[0], q[1], k);
          EXPECT_NEAR(a.u, b.u, 1e-9) << "view " << m << " r " << r;
          EXPECT_NEAR(a.v, b.v, 1e-9) << "view " << m << " r " << r;
          EXPECT_NEAR(a.t, s.scale[m] * b.t, 1e-12 * std::abs(a.t)) << "view " << m;
          ++checked;
        }
  EXPECT_GT(checked, 20);
}

}  // namespace

TEST(FdkOrbitSymmetry, FullCircleHasHalfAndQuarterTurns) {
  const Grid3 g = Grid3::centred({16, 16, 8}, {2.0, 2.0, 2.5});
  const CArmGeometry c = circle(40);
  const auto p = signed_matrices(g, c.matrices());
  const OrbitSymmetry half = orbit_symmetry(g, p, 2), quarter = orbit_symmetry(g, p, 4);
  ASSERT_EQ(half.order, 2) << half.reason;
  ASSERT_EQ(quarter.order, 4) << quarter.reason;
  EXPECT_TRUE(quarter.sense == 1 || quarter.sense == -1);
  EXPECT_LT(half.max_rel, 1e-12);
  EXPECT_LT(quarter.max_rel, 1e-12);
  expect_symmetric(g, p, half);
  expect_symmetric(g, p, quarter);
  for (double c : quarter.scale) EXPECT_NEAR(c, 1.0, 1e-12);  // the C-arm's matrices: w = 1 at the isocentre
}

TEST(FdkOrbitSymmetry, MatricesScaledPerViewKeepTheSymmetryAndGiveTheScale) {
  // Projection matrices are homogeneous: users' come with any scale per view. The turn still
  // holds; t scales, and the found c says by how much.
  const Grid3 g = Grid3::centred({16, 16, 8}, {2.0, 2.0, 2.5});
  std::vector<Mat34> m = circle(40).matrices();
  for (std::size_t n = 0; n < m.size(); ++n)
    for (double& e : m[n].a) e *= 1.0 + 0.1 * static_cast<double>(n % 7);
  const auto p = signed_matrices(g, m);
  const OrbitSymmetry quarter = orbit_symmetry(g, p, 4);
  ASSERT_EQ(quarter.order, 4) << quarter.reason;
  EXPECT_NEAR(quarter.scale[13], (1.0 + 0.1 * (13 % 7)) / (1.0 + 0.1 * (3 % 7)), 1e-12);  // view 13 = 3 + 10
  expect_symmetric(g, p, quarter);
}

TEST(FdkOrbitSymmetry, OffsetAndTiltedDetectorTurnWithTheGantry) {
  // A detector shifted and rolled on the gantry turns with it: the symmetry holds. A half turn
  // needs no square section.
  const Grid3 g = Grid3::centred({12, 20, 6}, {2.0, 1.5, 2.0});
  CArmGeometry c = circle(36);
  c.principal_u = 40.25;
  c.principal_v = 37.5;
  c.roll_deg = 2.0;
  c.yaw_deg = -1.5;
  c.start_deg = 17.0;
  const auto p = signed_matrices(g, c.matrices());
  const OrbitSymmetry half = orbit_symmetry(g, p, 2);
  ASSERT_EQ(half.order, 2) << half.reason;
  expect_symmetric(g, p, half);
  const OrbitSymmetry quarter = orbit_symmetry(g, p, 4);
  EXPECT_EQ(quarter.order, 1);
  EXPECT_NE(quarter.reason.find("not square"), std::string::npos) << quarter.reason;
}

TEST(FdkOrbitSymmetry, RefusedWhereItDoesNotHold) {
  const Grid3 g = Grid3::centred({16, 16, 8}, {2.0, 2.0, 2.0});
  {  // a short scan: the views do not close the circle
    CArmGeometry c = circle(40);
    c.arc_deg = 200.0;
    const OrbitSymmetry s = orbit_symmetry(g, signed_matrices(g, c.matrices()), 2);
    EXPECT_EQ(s.order, 1);
    EXPECT_NE(s.reason.find("is not view"), std::string::npos) << s.reason;
    EXPECT_GT(s.max_rel, 1e-3);
  }
  {  // 42 views: pairs, but no quads
    const auto p = signed_matrices(g, circle(42).matrices());
    EXPECT_EQ(orbit_symmetry(g, p, 2).order, 2);
    const OrbitSymmetry s = orbit_symmetry(g, p, 4);
    EXPECT_EQ(s.order, 1);
    EXPECT_NE(s.reason.find("42 views"), std::string::npos) << s.reason;
  }
  {  // the grid off the rotation axis by a third of a voxel
    Grid3 off = g;
    off.origin_mm[0] += 0.66;
    const auto p = signed_matrices(off, circle(40).matrices());
    EXPECT_EQ(orbit_symmetry(off, p, 2).order, 1);
    EXPECT_EQ(orbit_symmetry(off, p, 4).order, 1);
  }
  {  // an odd number of y rows: the half turn's middle row maps onto itself
    const Grid3 odd = Grid3::centred({16, 15, 8}, {2.0, 2.0, 2.0});
    const OrbitSymmetry s = orbit_symmetry(odd, signed_matrices(odd, circle(40).matrices()), 2);
    EXPECT_EQ(s.order, 1);
    EXPECT_NE(s.reason.find("15 rows"), std::string::npos) << s.reason;
  }
  {  // unequal steps: one view moved by 0.01°
    CArmGeometry c = circle(40);
    for (int n = 0; n < 40; ++n) c.angles_deg.push_back(9.0 * n + (n == 25 ? 0.01 : 0.0));
    const OrbitSymmetry s = orbit_symmetry(g, signed_matrices(g, c.matrices()), 4);
    EXPECT_EQ(s.order, 1);
    EXPECT_NE(s.reason.find("view 25"), std::string::npos) << s.reason;
  }
}
