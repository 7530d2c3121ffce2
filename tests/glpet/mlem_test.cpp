// glpet ML-EM end to end on Monte-Carlo data: a hot sphere is recovered at its place
// (centroid within one voxel) and the NRMSE against the phantom falls over iterations.
#include <gtest/gtest.h>

#include "compute/core/phantom.hpp"
#include "compute/glpet/cpu_projector.hpp"
#include "compute/glpet/metrics.hpp"
#include "compute/glpet/mlem.hpp"
#include "compute/glpet/monte_carlo.hpp"
#include "tests/glpet/small_system.hpp"

namespace tomo::glpet {
namespace {

TEST(GlpetMlem, RecoversAHotSphereWithFallingNrmse) {
  auto sys = test::small_system();
  Phantom act, att;
  Shape sphere;
  sphere.centre = {6, -4, 4};
  sphere.semi_axes = {5, 5, 5};
  sphere.value = 1.0;
  act.shapes.push_back(sphere);
  Shape water;
  water.kind = Shape::Kind::Cylinder;
  water.semi_axes = {13, 13, 15};
  water.value = 0.0096;
  att.shapes.push_back(water);
  const VolumeF activity = act.voxelize(sys.grid, 2);
  sys.sigma_t = att.voxelize(sys.grid, 2);

  McOptions mc_opt;
  mc_opt.histories = 2'000'000;
  mc_opt.seed = 11;
  const McResult mc = simulate(sys.scanner, sys.sigma_t, VoxelSource(activity), mc_opt);
  double total = 0;
  for (float a : activity.data) total += a;
  std::vector<float> truth(activity.data.size());
  for (std::size_t v = 0; v < truth.size(); ++v) truth[v] = float(activity.data[v] / total * mc.histories);

  CpuProjector op;
  op.configure(sys);
  std::vector<double> err;
  MlemOptions opt;
  opt.iterations = 12;
  opt.on_iteration = [&](int, const BackendBuffer& x) {
    err.push_back(nrmse(download(x), truth));
    return true;
  };
  const MlemResult res = run_mlem(op, mc.counts, {}, opt);
  ASSERT_EQ(err.size(), 12u);
  for (int i = 1; i < 6; ++i) EXPECT_LT(err[i], err[i - 1]) << "iteration " << i + 1;
  EXPECT_LT(err.back(), 0.82 * err.front());  // 0.796 and 0.806 in two realisations of the data
  EXPECT_LT(err.back(), 0.7);
  const Vec3 c = centroid(sys.grid, res.x), ct = centroid(sys.grid, truth);
  for (int a = 0; a < 3; ++a) EXPECT_NEAR(c[a], ct[a], 2.0) << "axis " << a;  // one 2 mm voxel
  EXPECT_NEAR(c[0], 6, 2.0);
  EXPECT_NEAR(c[1], -4, 2.0);
  EXPECT_NEAR(c[2], 4, 2.0);
  // Counts are preserved by ML-EM: Σ ỹ ≈ Σ y.
  double sy = 0, st = 0;
  for (std::size_t l = 0; l < mc.counts.size(); ++l) {
    sy += mc.counts[l];
    st += res.estimate[l];
  }
  EXPECT_NEAR(st / sy, 1.0, 0.02);
  for (float e : err) std::printf("%.4f ", e);
  std::printf("\n");
}

// on_iteration returning false stops ML-EM after that iteration; the image is the one it saw.
TEST(GlpetMlem, OnIterationFalseStopsEarly) {
  const auto sys = test::small_system();
  CpuProjector op;
  op.configure(sys);
  std::vector<float> truth(sys.voxel_count(), 0.0f);
  truth[sys.grid.index(8, 8, 8)] = 100.0f;
  const std::vector<float> y = forward_host(op, truth);
  MlemOptions opt;
  opt.iterations = 10;
  int calls = 0;
  std::vector<float> seen;
  opt.on_iteration = [&](int it, const BackendBuffer& x) {
    ++calls;
    seen = download(x);
    return it < 3;
  };
  const MlemResult res = run_mlem(op, y, {}, opt);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(res.iterations, 3);
  EXPECT_EQ(res.x, seen);
  opt.on_iteration = {};
  opt.iterations = 3;
  EXPECT_EQ(run_mlem(op, y, {}, opt).x, seen);  // the same three iterations, run to the end
}

}  // namespace
}  // namespace tomo::glpet
