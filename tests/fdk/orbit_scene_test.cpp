// The circular orbit from scene keys: detector offsets move the central ray's pixel, any arc is
// taken by the iterative algorithms (FDK still needs a short scan), and the projector's rays built
// from the orbit's matrices start at its source and pass through its detector pixels.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>

#include "compute/core/error.hpp"
#include "compute/core/scene.hpp"
#include "compute/fdk/config.hpp"
#include "compute/fdk/pipeline.hpp"
#include "compute/fdk/ray_model.hpp"

namespace tomo::fdk {
namespace {

const char* kOrbit =
    "[fdk.geometry]\nprojections = 30\narc_deg = 120.0\ndetector_columns = 64\ndetector_rows = 48\n"
    "pixel_mm = 8.0\nsource_iso_mm = 600.0\nsource_det_mm = 1000.0\ndetector_offset_u_mm = 16.0\n"
    "detector_offset_v_mm = -12.0\n";

std::string error_of(const std::string& toml) {
  try {
    (void)FdkConfig::from_scene(Scene::load_string(toml, "<t>"));
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(FdkOrbitScene, OffsetsMoveTheCentralRayAndIterativeAlgorithmsTakeAnyArc) {
  const FdkConfig c = FdkConfig::from_scene(Scene::load_string(std::string("[fdk]\nalgorithm = \"sirt\"\n") + kOrbit, "<t>"));
  const CArmGeometry& g = c.geometry;
  EXPECT_DOUBLE_EQ(g.u0(), 31.5 + 2.0);  // 16 mm = 2 pixels along the columns
  EXPECT_DOUBLE_EQ(g.v0(), 23.5 - 1.5);
  for (int n : {0, 17, 29}) {
    const auto p = g.matrix(n).project(0, 0, 0);
    EXPECT_NEAR(p.u, 33.5, 1e-9);
    EXPECT_NEAR(p.v, 22.0, 1e-9);
    // 10 mm along z at the isocentre: magnified by D_sd / D_si = 5/3, in 8 mm pixels.
    EXPECT_NEAR(g.matrix(n).project(0, 0, 10).v - 22.0, 10.0 * 1000.0 / 600.0 / 8.0, 1e-9);
  }
  EXPECT_NEAR(g.angle_rad(29) - g.angle_rad(0), 120.0 * std::numbers::pi / 180.0, 1e-12);
  // FDK on the same 120° arc is refused: its weights need 180° + 2·fan angle.
  const std::string e = error_of(kOrbit);
  EXPECT_NE(e.find("fdk.geometry"), std::string::npos) << e;
  EXPECT_NE(e.find("short scan"), std::string::npos) << e;
  EXPECT_NE(error_of("[fdk.geometry]\ndetector_offset_u_mm = 1e6\n").find("fdk.geometry.detector_offset_u_mm"),
            std::string::npos);
}

TEST(FdkOrbitScene, ProjectorRaysRunFromTheSourceThroughTheDetectorPixels) {
  const FdkConfig c = FdkConfig::from_scene(Scene::load_string(std::string("[fdk]\nalgorithm = \"tv\"\n") + kOrbit, "<t>"));
  const CArmGeometry& g = c.geometry;
  const Grid3 grid = rabbit_grid(16, 256.0);
  for (int n : {0, 11, 29}) {
    const ViewRays r = view_rays(grid, g.matrix(n), n);
    const Vec3d s = g.source(n);
    for (int a = 0; a < 3; ++a) EXPECT_NEAR(grid.origin_mm[a] + r.base[a] * grid.voxel_mm[a], s[a], 1e-9);
    // The ray of pixel (5, 40) meets the detector point of that pixel: the direction to it is
    // parallel to the ray's (cross product zero).
    const Vec3d d = g.detector_point(n, 5.0, 40.0);
    const double u[3] = {r.du_mm[0] * 5 + r.dv_mm[0] * 40 + r.d1_mm[0], r.du_mm[1] * 5 + r.dv_mm[1] * 40 + r.d1_mm[1],
                         r.du_mm[2] * 5 + r.dv_mm[2] * 40 + r.d1_mm[2]};
    const double v[3] = {d[0] - s[0], d[1] - s[1], d[2] - s[2]};
    const double cross = std::hypot(u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]);
    EXPECT_LT(cross, 1e-9 * std::hypot(u[0], u[1], u[2]) * std::hypot(v[0], v[1], v[2]));
    EXPECT_GT(u[0] * v[0] + u[1] * v[1] + u[2] * v[2], 0.0);  // towards the detector
  }
}

}  // namespace
}  // namespace tomo::fdk
