// Geometry a CT user describes — the circular orbit with offsets and tilts, ASTRA's cone_vec
// rows, TIGRE's fields — gives the same matrices through every path, and points project where
// they are computed by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/scene.hpp"
#include "compute/fdk/astra_geometry.hpp"
#include "compute/fdk/geometry.hpp"
#include "compute/fdk/tigre_geometry.hpp"

using namespace tomo::fdk;

namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

// Relative difference of two matrices (both scaled to w = 1 at the origin, so comparable).
double matrix_gap(const Mat34& a, const Mat34& b) {
  double num = 0, den = 0;
  for (int i = 0; i < 12; ++i) num = std::max(num, std::abs(a.a[i] - b.a[i])), den = std::max(den, std::abs(b.a[i]));
  return num / den;
}

CArmGeometry small_orbit() {
  CArmGeometry g;
  g.projections = 7;
  g.arc_deg = 300.0;
  g.start_deg = 10.0;
  g.sx = 64;
  g.sy = 48;
  g.pixel_mm = 1.5;
  g.source_iso_mm = 500.0;
  g.source_det_mm = 800.0;
  return g;
}

TigreGeometry tigre_of(const CArmGeometry& g) {
  TigreGeometry t;
  t.DSO = {g.source_iso_mm};
  t.DSD = {g.source_det_mm};
  t.nDetector = {g.sy, g.sx};
  t.dDetector = {g.pixel_mm, g.pixel_mm};
  // TIGRE's offDetector moves the detector centre; ours says where the central ray meets it.
  t.offDetector = {{-(g.v0() - 0.5 * (g.sy - 1)) * g.pixel_mm, -(g.u0() - 0.5 * (g.sx - 1)) * g.pixel_mm}};
  t.rotDetector = {{g.yaw_deg * kDeg, g.pitch_deg * kDeg, g.roll_deg * kDeg}};
  for (int n = 0; n < g.projections; ++n) t.angles.push_back({g.angle_rad(n), 0.0, 0.0});
  return t;
}

// ASTRA rows written from the physical description, not from our views.
std::vector<double> astra_rows_untilted(const CArmGeometry& g, double off_u_mm, double off_v_mm) {
  std::vector<double> r;
  for (int n = 0; n < g.projections; ++n) {
    const double b = g.angle_rad(n), c = std::cos(b), s = std::sin(b);
    const double along = g.source_iso_mm - g.source_det_mm;
    const std::vector<double> row{g.source_iso_mm * c, g.source_iso_mm * s, 0.0,
                                  along * c - off_u_mm * s, along * s + off_u_mm * c, off_v_mm,
                                  -g.pixel_mm * s, g.pixel_mm * c, 0.0,
                                  0.0, 0.0, g.pixel_mm};
    r.insert(r.end(), row.begin(), row.end());
  }
  return r;
}

}  // namespace

TEST(ConeGeometry, UntiltedViewsGiveTheCArmMatrices) {
  CArmGeometry g = small_orbit();
  g.principal_u = 40.25;  // central ray off the centre
  for (int n = 0; n < g.projections; ++n)
    EXPECT_LT(matrix_gap(view_matrix(g.view(n), g.sx, g.sy, "test"), g.matrix(n)), 1e-13) << n;
}

TEST(ConeGeometry, OrbitTigreAndAstraAgree) {
  CArmGeometry g = small_orbit();
  g.principal_u = 0.5 * (g.sx - 1) + 6.0 / g.pixel_mm;  // central ray 6 mm along the columns
  g.principal_v = 0.5 * (g.sy - 1) - 4.5 / g.pixel_mm;
  const auto ours = g.matrices();
  const auto tigre = tigre_of(g).matrices("tigre");
  const auto rows = astra_rows_untilted(g, -6.0, 4.5);  // detector centre opposite the offsets
  const auto astra = astra_cone_vec_matrices(rows, g.sy, g.sx, "astra");
  ASSERT_EQ(tigre.size(), ours.size());
  ASSERT_EQ(astra.size(), ours.size());
  for (std::size_t n = 0; n < ours.size(); ++n) {
    EXPECT_LT(matrix_gap(tigre[n], ours[n]), 1e-12) << n;
    EXPECT_LT(matrix_gap(astra[n], ours[n]), 1e-12) << n;
  }
  // Tilted: the orbit and TIGRE share the definition of roll, pitch and yaw.
  g.roll_deg = 2.0;
  g.pitch_deg = -3.0;
  g.yaw_deg = 11.0;
  const auto tilted = g.matrices();
  const auto tilted_tigre = tigre_of(g).matrices("tigre");
  for (std::size_t n = 0; n < ours.size(); ++n) {
    EXPECT_LT(matrix_gap(tilted_tigre[n], tilted[n]), 1e-12) << n;
    EXPECT_GT(matrix_gap(tilted[n], ours[n]), 1e-3) << n;  // the tilt changed something
  }
}

TEST(ConeGeometry, PointsProjectWhereComputedByHand) {
  // ASTRA: source on −y at 500, detector centre on +y at 300, columns along +x, rows along +z.
  const std::vector<double> row{0, -500, 0, 0, 300, 0, 2, 0, 0, 0, 0, 2};
  const Mat34 a = astra_cone_vec_matrices(row, 40, 30, "astra")[0];  // 40 rows, 30 columns
  const double mag = 800.0 / 500.0;
  auto p = a.project(10, 0, -5);
  EXPECT_NEAR(p.u, 14.5 + 10 * mag / 2, 1e-9);
  EXPECT_NEAR(p.v, 19.5 - 5 * mag / 2, 1e-9);
  EXPECT_NEAR(p.w, 1.0, 1e-12);
  p = a.project(0, 100, 0);  // 100 mm nearer the detector: magnification 800/600, depth 600/500
  EXPECT_NEAR(p.w, 600.0 / 500.0, 1e-12);

  // TIGRE at α = 0: source on +x at DSO = 500, DSD = 800, 30 columns × 40 rows of 2 mm.
  TigreGeometry t;
  t.DSO = {500.0};
  t.DSD = {800.0};
  t.nDetector = {40, 30};
  t.dDetector = {2.0, 2.0};
  t.angles = {{0.0, 0.0, 0.0}};
  t.offDetector = {{3.0, 5.0}};  // centre moved 3 mm up and 5 mm along the columns
  p = t.matrices("tigre")[0].project(0, 0, 0);
  EXPECT_NEAR(p.u, 14.5 - 5.0 / 2, 1e-9);
  EXPECT_NEAR(p.v, 19.5 - 3.0 / 2, 1e-9);
  p = t.matrices("tigre")[0].project(0, 10, 4);  // +y is along the columns, +z along the stored rows
  EXPECT_NEAR(p.u, 14.5 - 2.5 + 10 * mag / 2, 1e-9);
  EXPECT_NEAR(p.v, 19.5 - 1.5 + 4 * mag / 2, 1e-9);
  // yaw (about x, the central ray at α = 0) of 90°: the columns now run along +z.
  t.offDetector = {{0.0, 0.0}};
  t.rotDetector = {{std::numbers::pi / 2, 0.0, 0.0}};
  p = t.matrices("tigre")[0].project(0, 0, 6);
  EXPECT_NEAR(p.u, 14.5 + 6 * mag / 2, 1e-9);
  EXPECT_NEAR(p.v, 19.5, 1e-9);
  // offOrigin (z, y, x): the image centre sits at y = 4 in TIGRE's world, so our point (10, 0, 0)
  // (from the image centre) projects as TIGRE's (10, 4, 0): 10 mm nearer the source.
  t.rotDetector = {{0.0, 0.0, 0.0}};
  t.offOrigin = {{0.0, 4.0, 0.0}};
  p = t.matrices("tigre")[0].project(10, 0, 0);
  EXPECT_NEAR(p.u, 14.5 + 4 * (800.0 / 490.0) / 2, 1e-9);
  EXPECT_NEAR(p.v, 19.5, 1e-9);
  // α = 90°: the source on +y, columns along −x.
  t.offOrigin = {{0.0, 0.0, 0.0}};
  t.angles = {{std::numbers::pi / 2, 0.0, 0.0}};
  p = t.matrices("tigre")[0].project(-10, 0, 0);
  EXPECT_NEAR(p.u, 14.5 + 10 * mag / 2, 1e-9);
}

TEST(ConeGeometry, BadInputIsRefusedNamingTheField) {
  const std::vector<double> eleven(11, 1.0);
  try {
    (void)astra_cone_vec_matrices(eleven, 4, 4, "vectors.txt");
    FAIL();
  } catch (const tomo::InputError& e) {
    EXPECT_STREQ(e.what(), "vectors.txt: cone_vec takes 12 numbers per view, got 11");
  }
  // Source at the detector centre's side: the origin is behind it.
  const std::vector<double> behind{0, 300, 0, 0, 500, 0, 1, 0, 0, 0, 0, 1};
  EXPECT_THROW((void)astra_cone_vec_matrices(behind, 4, 4, "v"), tomo::InputError);
  TigreGeometry t;
  t.angles = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
  t.DSO = {1000.0, 1000.0};
  try {
    (void)t.matrices("geo");
    FAIL();
  } catch (const tomo::InputError& e) {
    EXPECT_STREQ(e.what(), "geo: DSO has 2 values; give 1 or one per view (3)");
  }
}

TEST(ConeGeometry, SceneKeysDescribeAnglesAndTilts) {
  const auto s = tomo::Scene::load_string(
      "problem = \"fdk\"\n[fdk.geometry]\nangles_deg = [0.0, 50.0, 120.0, 240.0]\ndetector_yaw_deg = 1.5\n"
      "detector_columns = 64\ndetector_rows = 48\npixel_mm = 1.5\n",
      "s.toml");
  const CArmGeometry g = CArmGeometry::from_scene(s, "fdk.geometry.", false);
  EXPECT_EQ(g.projections, 4);
  EXPECT_DOUBLE_EQ(g.arc_deg, 240.0);
  EXPECT_NEAR(g.angle_rad(2), 120.0 * kDeg, 1e-15);
  EXPECT_DOUBLE_EQ(g.yaw_deg, 1.5);
  EXPECT_TRUE(g.tilted());
  // The simulator's detector points lie on the rays the matrices describe.
  const auto d = g.detector_point(2, 10.0, 7.0);
  const auto src = g.source(2);
  const auto p = g.matrix(2).project(0.5 * (d[0] + src[0]), 0.5 * (d[1] + src[1]), 0.5 * (d[2] + src[2]));
  EXPECT_NEAR(p.u, 10.0, 1e-9);
  EXPECT_NEAR(p.v, 7.0, 1e-9);
  const auto both = tomo::Scene::load_string(
      "problem = \"fdk\"\n[fdk.geometry]\nangles_deg = [0.0, 50.0]\nprojections = 2\n", "b.toml");
  try {
    (void)CArmGeometry::from_scene(both, "fdk.geometry.", false);
    FAIL();
  } catch (const tomo::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("projections both set the views"), std::string::npos) << e.what();
  }
  const auto down = tomo::Scene::load_string("problem = \"fdk\"\n[fdk.geometry]\nangles_deg = [0.0, 50.0, 20.0]\n",
                                             "d.toml");
  EXPECT_THROW((void)CArmGeometry::from_scene(down, "fdk.geometry.", false), tomo::InputError);
}
