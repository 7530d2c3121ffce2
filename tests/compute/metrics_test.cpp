// Tests of the shared comparison measures against values worked out by hand, and their
// refusal of inputs of different sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/metrics.hpp"

using namespace tomo;

TEST(Metrics, RelativeL2ByHand) {
  // a − ref = (1, 0, −2), ‖·‖² = 5; ‖ref‖² = 1 + 4 + 4 = 9 → √5 / 3.
  const std::vector<double> ref{1, 2, 2}, a{2, 2, 0};
  EXPECT_DOUBLE_EQ(relative_l2(a, ref), std::sqrt(5.0) / 3.0);
  const std::vector<float> rf{1, 2, 2}, af{2, 2, 0};
  EXPECT_DOUBLE_EQ(relative_l2(af, rf), std::sqrt(5.0) / 3.0);
  EXPECT_EQ(relative_l2(ref, ref), 0.0);
}

TEST(Metrics, RelativeL2OfAZeroReferenceIsTheAbsoluteNorm) {
  const std::vector<float> zero{0, 0}, a{3, 4};
  EXPECT_DOUBLE_EQ(relative_l2(a, zero), 5.0);
}

TEST(Metrics, NrmseUsesTheLeastSquaresScale) {
  // a = ref / 2: k = 2 fits exactly.
  const std::vector<double> ref{2, 4, 6}, half{1, 2, 3};
  EXPECT_NEAR(nrmse(half, ref), 0.0, 1e-15);
  // a = (1, 0), ref = (1, 1): k = 1, residual (0, −1) → 1 / √2.
  const std::vector<float> a{1, 0}, r{1, 1};
  EXPECT_DOUBLE_EQ(nrmse(a, r), 1.0 / std::sqrt(2.0));
  const std::vector<double> zero{0, 0}, any{1, 2};
  EXPECT_EQ(nrmse(any, zero), 0.0);
}

TEST(Metrics, RmseByHand) {
  // differences (1, 0, −2, 1): Σ² = 6 over 4 → √1.5.
  const std::vector<double> ref{1, 2, 2, 0}, a{2, 2, 0, 1};
  EXPECT_DOUBLE_EQ(rmse(a, ref), std::sqrt(1.5));
  EXPECT_EQ(rmse(ref, ref), 0.0);
  EXPECT_EQ(rmse(std::vector<double>{}, std::vector<double>{}), 0.0);
  EXPECT_THROW(rmse(std::vector<double>(3), std::vector<double>(4)), Error);
}

TEST(Metrics, CorrelationByHand) {
  const std::vector<double> a{1, 2, 3}, b{2, 4, 6}, c{3, 2, 1}, flat{5, 5, 5};
  EXPECT_DOUBLE_EQ(correlation(a, b), 1.0);
  EXPECT_DOUBLE_EQ(correlation(a, c), -1.0);
  EXPECT_EQ(correlation(a, flat), 0.0);
  // (1, 2, 3, 4) vs (1, 3, 2, 4): Σ(dx·dy) = 4, Σdx² = Σdy² = 5 → 0.8.
  const std::vector<float> x{1, 2, 3, 4}, y{1, 3, 2, 4};
  EXPECT_NEAR(correlation(x, y), 0.8, 1e-15);
  EXPECT_EQ(correlation(std::vector<double>{}, std::vector<double>{}), 0.0);
}

TEST(Metrics, SizeMismatchThrowsNamingTheSizes) {
  const std::vector<float> a(3), b(4);
  for (auto f : {+[](std::span<const float> x, std::span<const float> y) { return relative_l2(x, y); },
                 +[](std::span<const float> x, std::span<const float> y) { return nrmse(x, y); },
                 +[](std::span<const float> x, std::span<const float> y) { return correlation(x, y); }}) {
    try {
      f(a, b);
      FAIL() << "no throw";
    } catch (const Error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find('3'), std::string::npos) << m;
      EXPECT_NE(m.find('4'), std::string::npos) << m;
    }
  }
  const std::vector<double> c(1), d(2);
  EXPECT_THROW(relative_l2(c, d), Error);
}
