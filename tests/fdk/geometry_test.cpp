// Projection matrices of the C-arm geometry map known points to known pixels.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "compute/core/error.hpp"
#include "compute/fdk/geometry.hpp"

using namespace tomo::fdk;

TEST(FdkGeometry, IsocentreMapsToThePrincipalPointWithUnitDepth) {
  CArmGeometry g;  // RabbitCT: 496 × 1248×960, 0.32 mm, 785 / 1200 mm
  for (int n : {0, 100, 495}) {
    const auto p = g.matrix(n).project(0, 0, 0);
    EXPECT_NEAR(p.u, 623.5, 1e-9);
    EXPECT_NEAR(p.v, 479.5, 1e-9);
    EXPECT_NEAR(p.w, 1.0, 1e-12);
  }
  EXPECT_NEAR(g.angle_rad(495) - g.angle_rad(0), 200.0 * std::numbers::pi / 180.0, 1e-12);
}

TEST(FdkGeometry, KnownPointsAtBetaZero) {
  CArmGeometry g;  // β_0 = 0: source on +x at 785 mm, detector columns along +y, rows along +z
  const Mat34 A = g.matrix(0);
  const double mag = 1200.0 / 785.0, px = 0.32;
  // A point 10 mm along +z at the isocentre: v moves by 10·M/p pixels.
  auto p = A.project(0, 0, 10);
  EXPECT_NEAR(p.v, 479.5 + 10 * mag / px, 1e-9);
  EXPECT_NEAR(p.u, 623.5, 1e-9);
  // A point 20 mm along +y: u moves by 20·M/p.
  p = A.project(0, 20, 0);
  EXPECT_NEAR(p.u, 623.5 + 20 * mag / px, 1e-9);
  // A point 100 mm towards the source: magnification 1200/685, depth w = 685/785.
  p = A.project(100, 20, -5);
  EXPECT_NEAR(p.w, 685.0 / 785.0, 1e-12);
  EXPECT_NEAR(p.u, 623.5 + 20 * (1200.0 / 685.0) / px, 1e-9);
  EXPECT_NEAR(p.v, 479.5 - 5 * (1200.0 / 685.0) / px, 1e-9);
  // At β = 90° (n such that the angle is π/2 with a 180° + 2·γ arc) the source is on +y.
  CArmGeometry q = g;
  q.arc_deg = 200.0;
  q.projections = 201;  // 1° steps
  const auto s = q.source(90);
  EXPECT_NEAR(s[0], 0.0, 1e-9);
  EXPECT_NEAR(s[1], 785.0, 1e-9);
  p = q.matrix(90).project(-30, 0, 0);  // 30 mm along e_u = (−1, 0, 0) at the isocentre depth
  EXPECT_NEAR(p.u, 623.5 + 30 * mag / px, 1e-9);
}

TEST(FdkGeometry, DetectorPointsAndRaysProjectBackToTheirPixel) {
  CArmGeometry g;
  for (int n : {0, 37, 250, 495})
    for (double u : {0.0, 17.25, 623.5, 1247.0})
      for (double v : {0.0, 480.75, 959.0}) {
        const auto d = g.detector_point(n, u, v);
        const auto s = g.source(n);
        const Mat34 A = g.matrix(n);
        for (double t : {0.3, 0.55, 1.0}) {  // points along the source→pixel ray
          const auto p = A.project(s[0] + t * (d[0] - s[0]), s[1] + t * (d[1] - s[1]), s[2] + t * (d[2] - s[2]));
          EXPECT_NEAR(p.u, u, 1e-8);
          EXPECT_NEAR(p.v, v, 1e-8);
        }
        // The detector lies 1200 mm from the source along the central ray.
        const double cx = std::cos(g.angle_rad(n)), cy = std::sin(g.angle_rad(n));
        EXPECT_NEAR((s[0] - d[0]) * cx + (s[1] - d[1]) * cy, 1200.0, 1e-9);
      }
}

TEST(FdkGeometry, ValidationRejectsTooShortAScan) {
  CArmGeometry g;
  EXPECT_NO_THROW(g.validate("scene"));
  g.arc_deg = 190.0;  // needs 180 + 2·9.45°
  EXPECT_THROW(g.validate("scene"), tomo::InputError);
  g = CArmGeometry{};
  g.source_det_mm = 700.0;
  EXPECT_THROW(g.validate("scene"), tomo::InputError);
}
