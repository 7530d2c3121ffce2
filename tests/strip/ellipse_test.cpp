// The 3σ ellipse and its bounding box ([Bialas2015] Appendix B, eqs. 13–15): every pixel whose centre
// lies inside the ellipse is inside the box, and the box is tight.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "compute/strip/geometry.hpp"
#include "compute/strip/kernel_math.hpp"

namespace tomo::strip {
namespace {

TEST(StripEllipse, BoundingBoxContainsEveryPixelInsideTheEllipse) {
  StripGeometry g = StripGeometry::covering(130.0, 300.0, 1.0);  // fine pixels: many boundary cases
  const auto grid = g.grid<double>();
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> uz(-200.0, 200.0), udl(-300.0, 300.0);
  long inside_total = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const double sz = 5.0 + 15.0 * (trial % 4), sl = 20.0 + 20.0 * (trial % 3);
    const auto kp = make_kernel_params<double>(g.R, sz, sl);
    const auto f = make_frame<double>(uz(rng), uz(rng), udl(rng), kp);
    const PixelBox b = pixel_box(f, grid);
    // Scan a region well beyond the box: 3 half-sizes around the event.
    const int j_lo = std::max(0, int(std::floor((f.y - 3 * f.half_y - grid.y0) / grid.py)));
    const int j_hi = std::min(g.n_y - 1, int(std::ceil((f.y + 3 * f.half_y - grid.y0) / grid.py)));
    const int k_lo = std::max(0, int(std::floor((f.z - 3 * f.half_z - grid.z0) / grid.pz)));
    const int k_hi = std::min(g.n_z - 1, int(std::ceil((f.z + 3 * f.half_z - grid.z0) / grid.pz)));
    for (int j = j_lo; j <= j_hi; ++j)
      for (int k = k_lo; k <= k_hi; ++k) {
        const double q = ellipse_form(f, g.y_centre(j) - f.y, g.z_centre(k) - f.z);
        if (q > kp.cut) continue;
        ++inside_total;
        ASSERT_TRUE(j >= b.j0 && j <= b.j1 && k >= b.k0 && k <= b.k1)
            << "pixel (" << j << "," << k << ") with bCb = " << q << " outside box [" << b.j0 << "," << b.j1
            << "]x[" << b.k0 << "," << b.k1 << "] trial " << trial;
      }
  }
  EXPECT_GT(inside_total, 10000);
}

TEST(StripEllipse, BoxIsTightAndMatchesClosedForm) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> uz(-150.0, 150.0), udl(-200.0, 200.0);
  const auto kp = make_kernel_params<double>(130.0, 10.0, 40.0);
  for (int trial = 0; trial < 1000; ++trial) {
    const auto f = make_frame<double>(uz(rng), uz(rng), udl(rng), kp);
    // The extreme points (Δy, −C/B Δy) and (−C/A Δz, Δz) lie on the ellipse.
    EXPECT_NEAR(ellipse_form(f, f.half_y, -f.C / f.B * f.half_y), 9.0, 1e-9);
    EXPECT_NEAR(ellipse_form(f, -f.C / f.A * f.half_z, f.half_z), 9.0, 1e-9);
    // With eq. (15), A − C²/B = 4 / (σΔl² cos² θ̃): half-height 1.5 σΔl cos θ̃.
    EXPECT_NEAR(f.half_y, 1.5 * 40.0 / f.sec, 1e-9);
  }
}


// The row-hoisted form used by the cpu backend gives the same kernel and the same inside set.
TEST(StripEllipse, RowFormMatchesPixelForm) {
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> uz(-150.0, 150.0), udl(-200.0, 200.0), u(-1.0, 1.0);
  const auto kp = make_kernel_params<double>(130.0, 10.0, 40.0);
  for (int trial = 0; trial < 2000; ++trial) {
    const auto f = make_frame<double>(uz(rng), uz(rng), udl(rng), kp);
    const double dy = 1.2 * f.half_y * u(rng), dz = dy * f.tan + 40.0 * u(rng);
    const auto row = make_row(f, kp, dy);
    const double b1 = dz - dy * f.tan;
    const double q = ellipse_form(f, dy, dz);
    const bool inside_row = row.b1_half >= 0 && std::abs(b1) <= row.b1_half;
    if (std::abs(q - kp.cut) > 1e-9) {
      EXPECT_EQ(q <= kp.cut, inside_row) << "q = " << q;
    }
    if (q <= kp.cut) {
      const double p = kernel_value(f, kp, dy, dz, q);
      EXPECT_NEAR(kernel_row_value(row, kp, b1) / p, 1.0, 1e-10);
    }
  }
}

}  // namespace
}  // namespace tomo::strip
