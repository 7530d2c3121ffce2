// B through an FDK back-projector (voxel_back_fdk.hpp): on the cpu's RabbitCT kernel it is the
// cpu's B, and the check that sends a geometry with a voxel behind a source back to the cpu's B.
#include <gtest/gtest.h>

#include <random>

#include "compute/core/error.hpp"
#include "compute/fdk/geometry.hpp"
#include "compute/fdk/metrics.hpp"
#include "compute/fdk/ray_model.hpp"
#include "compute/fdk/voxel_back_fdk.hpp"

using namespace tomo;
using namespace tomo::fdk;

namespace {

ConeGeometry geometry(double volume_mm) {
  CArmGeometry c;
  c.projections = 7;
  c.arc_deg = 200.0;
  c.sx = 22;
  c.sy = 17;
  c.pixel_mm = 20.0;
  const double v = volume_mm / 13.0;
  return {Grid3::centred({13, 11, 9}, {v, v, v}), c.sx, c.sy, c.matrices()};
}

}  // namespace

TEST(FdkVoxelBackThroughFdk, OnTheCpuKernelItIsTheCpusB) {
  const ConeGeometry g = geometry(200.0);
  ASSERT_TRUE(every_voxel_in_front(g));
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(0.0f, 1.0f);
  std::vector<float> y(g.views() * g.image_size());
  for (float& e : y) e = d(rng);
  VoxelBackThroughFdk through("cpu");
  through.setup(g);
  ASSERT_TRUE(through.covers());
  const std::vector<int> views{5, 1, 2};
  std::vector<float> got(g.grid.count()), ref(g.grid.count());
  const std::span<const float> sub(y.data(), views.size() * g.image_size());
  through.run(sub, got, views, Interpolation::exact);
  back_voxel_on_host(g, sub, ref, views);
  EXPECT_LE(relative_l2(got, ref), 1e-6);
  double sum = 0;
  for (float e : ref) sum += e;
  EXPECT_GT(sum, 0.0);
}

TEST(FdkVoxelBackThroughFdk, AVoxelBehindASourceIsLeftToTheCpu) {
  // The C-arm puts the source 785 mm from the centre: a 2 m cube holds it.
  const ConeGeometry g = geometry(2000.0);
  EXPECT_FALSE(every_voxel_in_front(g));
  VoxelBackThroughFdk through("cpu");
  through.setup(g);
  EXPECT_FALSE(through.covers());
  std::vector<float> y(g.views() * g.image_size(), 1.0f), x(g.grid.count());
  EXPECT_THROW(through.run(y, x, {}, Interpolation::exact), Error);
}
