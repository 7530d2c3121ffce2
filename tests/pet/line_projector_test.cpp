// The cpu line projector (Joseph's model, compute/pet/joseph.hpp) against numbers that do not
// come from it: chord lengths through a uniform ball, exact sums along voxel rows, the adjoint
// identity in double, and its refusals of bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/pet/line_projector.hpp"
#include "tests/pet/line_lines.hpp"
#include "tests/support/input_errors.hpp"

namespace tomo::pet::test {
namespace {

using tomo::test::message_of;

LineGrid grid(int nx, int ny, int nz, double v) {
  LineGrid g;
  g.dims = {nx, ny, nz};
  g.voxel_mm = {v, v, v};
  // centred on 0: the centre of voxel 0 at -(n-1)/2 voxels
  for (int k = 0; k < 3; ++k) g.origin_mm[k] = -0.5 * (g.dims[k] - 1) * v;
  return g;
}

std::vector<double> project(const LineGrid& g, const std::vector<double>& ends, const std::vector<double>& image) {
  auto op = make_line_projector("cpu", g, ends);
  std::vector<double> y(ends.size() / 6);
  op->forward(image, y);
  return y;
}

// A uniform ball (1 at voxel centres within R of the grid's centre): the forward projection of
// a line at distance d from the centre is the chord 2·sqrt(R² − d²), to within the voxelisation
// (the ball's surface is known to half a voxel, at each of the chord's two ends).
TEST(LineProjector, UniformBallGivesChordLengths) {
  const double v = 1.0, R = 25.0;
  const LineGrid g = grid(64, 60, 56, v);
  std::vector<double> img(g.count());
  for (int z = 0; z < g.dims[2]; ++z)
    for (int y = 0; y < g.dims[1]; ++y)
      for (int x = 0; x < g.dims[0]; ++x) {
        const double px = g.origin_mm[0] + x * v, py = g.origin_mm[1] + y * v, pz = g.origin_mm[2] + z * v;
        img[(std::size_t(z) * g.dims[1] + y) * g.dims[0] + x] = px * px + py * py + pz * pz <= R * R ? 1.0 : 0.0;
      }
  // Lines from a sphere of 200 mm to the opposite side, through points at distance d < 0.9 R.
  std::mt19937_64 rng(7);
  std::normal_distribution<double> gauss;
  std::uniform_real_distribution<double> uni(0.0, 1.0);
  const int n = 2000;
  std::vector<double> ends(6 * n), chord(n);
  for (int i = 0; i < n; ++i) {
    double u[3], w[3];
    for (double& c : u) c = gauss(rng);
    const double nu = std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (double& c : u) c /= nu;
    for (double& c : w) c = gauss(rng);
    const double wu = w[0] * u[0] + w[1] * u[1] + w[2] * u[2];
    for (int k = 0; k < 3; ++k) w[k] -= wu * u[k];
    const double nw = std::sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    const double d = 0.9 * R * std::sqrt(uni(rng));
    for (int k = 0; k < 3; ++k) {
      const double c = d * w[k] / nw;
      ends[6 * i + k] = c - 200 * u[k];
      ends[6 * i + 3 + k] = c + 200 * u[k];
    }
    chord[i] = 2 * std::sqrt(R * R - d * d);
  }
  const std::vector<double> y = project(g, ends, img);
  double worst = 0, sum = 0;
  for (int i = 0; i < n; ++i) {
    const double err = std::abs(y[i] - chord[i]);
    worst = std::max(worst, err);
    sum += y[i] - chord[i];
  }
  // Each end of a chord may be off by up to one step (≤ √3 voxels for the steepest lines).
  EXPECT_LT(worst, 2 * std::sqrt(3.0) * v) << "largest |forward - chord| (mm)";
  // Unbiased on average: the mean error is a small fraction of a voxel.
  EXPECT_LT(std::abs(sum / n), 0.15 * v) << "mean forward - chord (mm)";
}

// Lines along an axis through voxel centres sum that row times the voxel side; halfway between
// two rows, the mean of the two rows (bilinear interpolation at ½).
TEST(LineProjector, AxisLinesSumRows) {
  const LineGrid g = grid(5, 4, 3, 2.0);
  const std::vector<double> img = random_values(g.count(), 3);
  auto at = [&](int x, int y, int z) { return img[(std::size_t(z) * 4 + y) * 5 + x]; };
  const double ox = g.origin_mm[0], oy = g.origin_mm[1], oz = g.origin_mm[2];
  // along x at (y=2, z=1); along z at x=3, y between rows 0 and 1; along y, ends inside the grid
  // at x=1, z=2, from the centre of voxel y=1 to beyond the grid (planes 1, 2, 3).
  const std::vector<double> ends = {-50, oy + 4, oz + 2, 50, oy + 4, oz + 2,
                                    ox + 6, oy + 1, -50, ox + 6, oy + 1, 50,
                                    ox + 2, oy + 2, oz + 4, ox + 2, 50, oz + 4};
  const std::vector<double> y = project(g, ends, img);
  double row = 0, col = 0, part = 0;
  for (int x = 0; x < 5; ++x) row += at(x, 2, 1);
  for (int z = 0; z < 3; ++z) col += 0.5 * (at(3, 0, z) + at(3, 1, z));
  for (int yy = 1; yy < 4; ++yy) part += at(1, yy, 2);
  EXPECT_NEAR(y[0], 2.0 * row, 1e-12);
  EXPECT_NEAR(y[1], 2.0 * col, 1e-12);
  EXPECT_NEAR(y[2], 2.0 * part, 1e-12);
}

// <A x, y> = <x, Aᵀ y> for random lines (oblique, missing, ending inside) on an anisotropic grid.
TEST(LineProjector, AdjointIdentityInDouble) {
  LineGrid g = grid(17, 13, 11, 1.0);
  g.voxel_mm = {0.8, 1.1, 1.7};
  g.origin_mm = {-3.0, 2.0, 1.0};
  const std::vector<double> ends = random_lines(g, 5000, 10.0, 11);
  auto op = make_line_projector("cpu", g, ends);
  const Adjoint r = adjoint_of(*op, g.count(), 12, 13);
  ASSERT_GT(r.lhs, 1.0);
  EXPECT_LT(std::abs(r.lhs - r.rhs), 1e-10 * std::abs(r.lhs)) << r.lhs << " vs " << r.rhs;
  EXPECT_GT(r.touched, 1000);  // the identity is not an empty one
  EXPECT_LT(r.touched, 5000);  // and some lines miss the grid
}

TEST(LineProjector, RefusesBadInput) {
  const LineGrid g = grid(4, 4, 4, 1.0);
  std::vector<double> ends = {-9, 0, 0, 9, 0, 0, -9, 1, 0, 9, 1, 0};
  EXPECT_EQ(message_of([&] { make_line_projector("cpu", g, ends); }), "no exception");
  ends[7] = std::nan("");
  EXPECT_EQ(message_of([&] { make_line_projector("cpu", g, ends); }),
            "line projector: end points of line 1 are not finite (nan)");
  ends.pop_back();
  EXPECT_EQ(message_of([&] { make_line_projector("cpu", g, ends); }),
            "line projector: 11 end-point values, not 6 per line (x, y, z of both ends)");
  ends = {-9, 0, 0, 9, 0, 0};
  LineGrid bad = g;
  bad.voxel_mm[1] = 0;
  EXPECT_EQ(message_of([&] { make_line_projector("cpu", bad, ends); }),
            "line projector: voxel_size along y is 0, must be finite and > 0");
  bad = g;
  bad.dims[2] = 0;
  EXPECT_EQ(message_of([&] { make_line_projector("cpu", bad, ends); }), "line projector: shape along z is 0, must be >= 1");
  EXPECT_EQ(message_of([&] { make_line_projector("gl-compute", g, ends); }),
            "line projector: backend 'gl-compute' is not implemented for this operator (it has cpu and cuda)");
  EXPECT_NE(message_of([&] { make_line_projector("nope", g, ends); }).find("unknown backend 'nope'"), std::string::npos);
}

}  // namespace
}  // namespace tomo::pet::test
