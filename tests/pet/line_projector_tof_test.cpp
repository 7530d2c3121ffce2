// The cpu line projector in TOF list mode against numbers that do not come from it: the sum over
// all TOF bins of a line equals its non-TOF value (the bins' erf differences telescope to 1), a
// point source's TOF profile is the analytic Gaussian integrated over each bin, the adjoint
// identity in double, and the refusals of bad TOF input.
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

LineGrid tof_grid() {
  LineGrid g;
  g.dims = {17, 13, 11};
  g.voxel_mm = {0.8, 1.1, 1.7};
  g.origin_mm = {-3.0, 2.0, 1.0};
  return g;
}

std::vector<double> forward(const LineGrid& g, const std::vector<double>& ends, const std::vector<double>& x,
                            const LineTof* tof) {
  auto op = make_line_projector("cpu", g, ends, tof);
  std::vector<double> y(ends.size() / 6);
  op->forward(x, y);
  return y;
}

// Every line repeated once per bin, bin b for copy b: Σ_b of its TOF values is the non-TOF value
// wherever the bins reach beyond the line's planes by the kernel's width (here 77 mm each way
// from the midpoint for lines of at most 60 mm, 8 σ = 32 mm). The renormalised weights sum to
// the Joseph step to within the truncation (e^{-32}) and the Riemann sum of a Gaussian of σ = 4 mm
// sampled every ≤ 2.9 mm (e^{-2π²σ²/h²} ≈ 1e-16).
TEST(LineProjectorTof, SumOverAllBinsIsNonTof) {
  const LineGrid g = tof_grid();
  const std::size_t n = 3000;
  const int bins = 31;
  const std::vector<double> ends = random_lines(g, n, 10.0, 31);
  const std::vector<double> x = random_values(g.count(), 32);
  std::vector<double> all;
  std::vector<int> index;
  for (int b = 0; b < bins; ++b) {
    all.insert(all.end(), ends.begin(), ends.end());
    index.insert(index.end(), n, b);
  }
  const std::vector<double> sigma = {4.0}, offset = {0.7};
  const LineTof tof{index, bins, 5.0, sigma, offset, 8.0};
  const std::vector<double> plain = forward(g, ends, x, nullptr);
  const std::vector<double> per_bin = forward(g, all, x, &tof);
  double worst = 0, largest = 0;
  int hit = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double sum = 0;
    for (int b = 0; b < bins; ++b) sum += per_bin[b * n + i];
    worst = std::max(worst, std::abs(sum - plain[i]));
    largest = std::max(largest, plain[i]);
    hit += plain[i] > 0;
  }
  ASSERT_GT(hit, 500);
  EXPECT_LT(worst, 1e-10 * largest) << "largest |Σ_b TOF − non-TOF| against the largest value " << largest;
}

// A single hot voxel and lines through its centre along ±x, ±y, ±z: the value of bin b is the
// step (2 mm) times the Gaussian integrated over the bin, ½[erf((d + Δ/2)/√2σ) − erf((d − Δ/2)/√2σ)],
// d the distance along p1 → p2 from the bin's centre (b − (n−1)/2)·Δ + sign·offset (the offset
// along the axis' increasing direction) to the voxel.
TEST(LineProjectorTof, PointSourceProfileIsTheBinnedGaussian) {
  LineGrid g;
  g.dims = {9, 9, 9};
  g.voxel_mm = {2, 2, 2};
  g.origin_mm = {-8, -8, -8};
  const int hot[3] = {5, 3, 4};
  std::vector<double> x(g.count(), 0.0);
  x[(std::size_t(hot[2]) * 9 + hot[1]) * 9 + hot[0]] = 1.0;
  const double c[3] = {g.origin_mm[0] + 2 * hot[0], g.origin_mm[1] + 2 * hot[1], g.origin_mm[2] + 2 * hot[2]};
  const int bins = 41;
  const double width = 4.0, sigma = 3.0, offset = 1.3;
  std::vector<double> ends;
  std::vector<int> index;
  std::vector<double> expected;
  for (int axis = 0; axis < 3; ++axis)
    for (double sign : {1.0, -1.0})
      for (int b = 0; b < bins; ++b) {
        double p1[3] = {c[0], c[1], c[2]}, p2[3] = {c[0], c[1], c[2]};
        p1[axis] = -sign * 100;  // an asymmetric line: its midpoint is 20 mm off the grid's centre
        p2[axis] = sign * 60;
        ends.insert(ends.end(), p1, p1 + 3);
        ends.insert(ends.end(), p2, p2 + 3);
        index.push_back(b);
        const double mid = 0.5 * (p1[axis] + p2[axis]);
        const double s_voxel = (c[axis] - mid) * sign;
        const double s_bin = (b - 0.5 * (bins - 1)) * width + sign * offset;
        const double d = s_voxel - s_bin, r = std::sqrt(2.0) * sigma;
        expected.push_back(2.0 * 0.5 * (std::erf((d + 0.5 * width) / r) - std::erf((d - 0.5 * width) / r)));
      }
  const std::vector<double> sig = {sigma}, off = {offset};
  LineTof tof{index, bins, width, sig, off, 8.0};
  const std::vector<double> y = forward(g, ends, x, &tof);
  double peak = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    EXPECT_NEAR(y[i], expected[i], 1e-12) << "line " << i;
    peak = std::max(peak, y[i]);
  }
  EXPECT_GT(peak, 0.8);  // step × the share of a bin a little wider than σ: 2 × (0.41 … 0.49)
  // Cut at 3σ and renormalised: within 1 % of the peak inside 3σ, exactly 0 beyond the window
  // (more than 3σ plus a plane from the bin's centre).
  tof.num_sigmas = 3.0;
  const std::vector<double> cut = forward(g, ends, x, &tof);
  int zero = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const int b = index[i];
    const double sign = (i / bins) % 2 == 0 ? 1.0 : -1.0;
    const int axis = int(i / (2 * bins));
    const double s_voxel = (c[axis] - 0.5 * (-sign * 100 + sign * 60)) * sign;
    const double d = std::abs(s_voxel - ((b - 0.5 * (bins - 1)) * width + sign * offset));
    if (d > 3 * sigma + 2.0) {
      EXPECT_EQ(cut[i], 0.0) << "line " << i << " at " << d << " mm";
      ++zero;
    } else if (d < 3 * sigma) {
      EXPECT_NEAR(cut[i], expected[i], 0.01 * peak) << "line " << i;
    }
  }
  EXPECT_GT(zero, 100);
}

// <A x, y> = <x, Aᵀ y> in TOF mode: random lines and bins, σ and the offset per line.
TEST(LineProjectorTof, AdjointIdentityInDouble) {
  const LineGrid g = tof_grid();
  const std::size_t n = 5000;
  const std::vector<double> ends = random_lines(g, n, 10.0, 41);
  std::mt19937_64 rng(42);
  std::vector<int> index(n);
  std::vector<double> sigma(n), offset(n);
  for (std::size_t i = 0; i < n; ++i) {
    index[i] = int(rng() % 15);
    sigma[i] = std::uniform_real_distribution<double>(1.0, 6.0)(rng);
    offset[i] = std::uniform_real_distribution<double>(-2.0, 2.0)(rng);
  }
  const LineTof tof{index, 15, 4.0, sigma, offset, 3.0};
  auto op = make_line_projector("cpu", g, ends, &tof);
  EXPECT_EQ(op->describe(), "cpu (double), TOF list mode");
  const Adjoint r = adjoint_of(*op, g.count(), 43, 44);
  ASSERT_GT(r.lhs, 1.0);
  EXPECT_LT(std::abs(r.lhs - r.rhs), 1e-10 * std::abs(r.lhs)) << r.lhs << " vs " << r.rhs;
  EXPECT_GT(r.touched, 500);
  EXPECT_LT(r.touched, 4500);  // bins far from the grid see nothing
}

TEST(LineProjectorTof, RefusesBadTofInput) {
  LineGrid g;
  g.dims = {4, 4, 4};
  g.origin_mm = {-1.5, -1.5, -1.5};
  const std::vector<double> ends = {-9, 0, 0, 9, 0, 0, -9, 1, 0, 9, 1, 0};
  std::vector<int> bins = {0, 4};
  std::vector<double> sigma = {2.0}, offset = {0.0};
  auto made = [&](LineTof t) { return message_of([&] { make_line_projector("cpu", g, ends, &t); }); };
  const LineTof ok{bins, 5, 3.0, sigma, offset, 3.0};
  EXPECT_EQ(made(ok), "no exception");
  LineTof t = ok;
  const std::vector<int> one = {0};
  t.bin_index = one;
  EXPECT_EQ(made(t), "line projector: tof_bin_index has 1 values, expected 2 (one per line)");
  const std::vector<int> beyond = {0, 5};
  t = ok;
  t.bin_index = beyond;
  EXPECT_EQ(made(t), "line projector: tof_bin_index of line 1 is 5, outside 0..4 (num_tof_bins 5)");
  t = ok;
  t.num_bins = 0;
  EXPECT_EQ(made(t), "line projector: num_tof_bins is 0, must be >= 1");
  t = ok;
  t.bin_width_mm = -1;
  EXPECT_EQ(made(t), "line projector: tof_bin_width is -1, must be finite and > 0");
  t = ok;
  t.num_sigmas = std::nan("");
  EXPECT_EQ(made(t), "line projector: num_sigmas is nan, must be finite and > 0");
  const std::vector<double> zero = {0.0}, per_line = {2.0, std::nan("")}, three = {1.0, 1.0, 1.0};
  t = ok;
  t.sigma_mm = zero;
  EXPECT_EQ(made(t), "line projector: tof_sigma is 0, must be finite and > 0");
  t.sigma_mm = per_line;
  EXPECT_EQ(made(t), "line projector: tof_sigma of line 1 is nan, must be finite and > 0");
  t.sigma_mm = three;
  EXPECT_EQ(made(t), "line projector: tof_sigma has 3 values, expected 1 or 2 (one per line)");
  t = ok;
  t.center_offset_mm = per_line;
  EXPECT_EQ(made(t), "line projector: tof_center_offset of line 1 is nan, must be finite");
  t = ok;
  const std::vector<double> huge = {1e9};
  t.sigma_mm = huge;
  EXPECT_NE(made(t).find("spans more than 10^6 planes"), std::string::npos) << made(t);
}

}  // namespace
}  // namespace tomo::pet::test
