// The reference back-projection implements the RabbitCT update rule and bilinear convention,
// and the RabbitCT metric converts and counts as specified.
#include <gtest/gtest.h>

#include <cmath>

#include "compute/fdk/cpu_kernel.hpp"
#include "compute/fdk/geometry.hpp"
#include "compute/fdk/metrics.hpp"

using namespace tomo;
using namespace tomo::fdk;

TEST(FdkCpuKernel, BilinearFollowsRabbitctConvention) {
  const float I[6] = {1, 2, 3, 4, 5, 6};  // 3×2, pixel (i, j) at j*3 + i
  EXPECT_DOUBLE_EQ(bilinear_rabbit(I, 3, 2, 0, 0), 1.0);
  EXPECT_DOUBLE_EQ(bilinear_rabbit(I, 3, 2, 2, 1), 6.0);
  EXPECT_DOUBLE_EQ(bilinear_rabbit(I, 3, 2, 0.5, 0.5), (1 + 2 + 4 + 5) / 4.0);
  EXPECT_DOUBLE_EQ(bilinear_rabbit(I, 3, 2, 2.5, 0), 0.5 * 3);   // right tap outside reads 0
  EXPECT_DOUBLE_EQ(bilinear_rabbit(I, 3, 2, -0.25, 1), 0.75 * 4);
  EXPECT_DOUBLE_EQ(bilinear_rabbit(I, 3, 2, 1, -1.0), 0.0);
  EXPECT_DOUBLE_EQ(bilinear_rabbit(I, 3, 2, NAN, 0), 0.0);
}

TEST(FdkCpuKernel, ConstantImageGivesSumOfInverseSquaredDepth) {
  CArmGeometry g;
  g.projections = 5;
  g.sx = 64;
  g.sy = 48;
  g.pixel_mm = 6.4;
  std::vector<Mat34> m = g.matrices();
  std::vector<float> img(static_cast<std::size_t>(g.sx) * g.sy * g.projections, 1.0f);
  ProjectionView b{g.sx, g.sy, g.projections, m.data(), img.data()};
  const Grid3 grid = Grid3::centred({8, 8, 8}, {10, 10, 10});
  std::vector<double> acc(grid.count(), 0.0);
  backproject_reference(grid, b, acc.data());
  for (int k : {0, 3, 7})
    for (int i : {0, 5}) {
      const auto x = grid.centre(i, 2, k);
      double expect = 0;
      for (const auto& A : m) {
        const double w = A.project(x[0], x[1], x[2]).w;
        expect += 1.0 / (w * w);
      }
      EXPECT_NEAR(acc[grid.index(i, 2, k)], expect, 1e-12 * expect);
    }
}

TEST(FdkMetric, HuConversionAndRabbitctMetric) {
  const std::array<float, 2> s{1000.0f, 24.0f};
  EXPECT_EQ(to_hu(0.0f, s), 0.0f);
  EXPECT_EQ(to_hu(-1.0f, s), 0.0f);
  EXPECT_EQ(to_hu(1.0f, s), 1024.0f);
  EXPECT_EQ(to_hu(0.0004f, s), 24.0f);   // floor(24.4 + 0.5)
  EXPECT_EQ(to_hu(10.0f, s), 4095.0f);   // clamped
  std::vector<std::uint16_t> ref(100, 1000);
  std::vector<float> test(100, 1000.0f);
  test[0] = 1003;                        // |e| = 3
  test[1] = 980;                         // |e| = 20 → last bin (>= 10)
  const RabbitMetric m = rabbit_metric(test, ref);
  EXPECT_DOUBLE_EQ(m.mse, (9.0 + 400.0) / 100.0);
  EXPECT_DOUBLE_EQ(m.max_abs, 20.0);
  EXPECT_NEAR(m.psnr_db, 10 * std::log10(4095.0 * 4095.0 / 4.09), 1e-9);
  EXPECT_EQ(m.histogram[0], 98u);
  EXPECT_EQ(m.histogram[3], 1u);
  EXPECT_EQ(m.histogram[10], 1u);
  EXPECT_TRUE(std::isinf(rabbit_metric(test, test).psnr_db));
}
