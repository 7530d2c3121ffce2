// PLS by CG against the cpu model: the objective never increases, the penalty's normal
// operator is the gradient of R, and on undersampled data (4 × 8 transducers) PLS-int's RMSE
// against the phantom is below FBP's on the same data (numbers in docs/oat.md).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/oat/model.hpp"
#include "compute/oat/phantom.hpp"
#include "compute/oat/pls.hpp"
#include "tests/oat/small_geometry.hpp"

namespace tomo::oat::test {

TEST(OatPls, PenaltyNormalIsHalfTheGradient) {
  const Grid3 g = Grid3::centred({5, 4, 3}, {1, 1, 1});
  const auto a = random_positive(g.count(), 9);
  std::vector<double> grad(g.count(), 0.0);
  add_penalty_normal(g, 1.0, a, grad);
  for (std::size_t n : {0ul, 7ul, 31ul, 59ul}) {
    auto b = a;
    const double h = 1e-6;
    b[n] += h;
    const double up = first_difference_penalty(g, b);
    b[n] -= 2 * h;
    const double down = first_difference_penalty(g, b);
    EXPECT_NEAR((up - down) / (2 * h), 2 * grad[n], 1e-6);
  }
}

TEST(OatPls, ObjectiveNeverIncreasesAndPlsBeatsFbpOnUndersampledData) {
  const OatGeometry g = small_geometry(16, 1.0, 4, 8, 25.0, 10.0);
  const OatPhantom ph = two_spheres();
  Noise noise;
  noise.snr_db = 40;
  const auto u = simulate_pressure(g, ph, noise);
  const auto truth = ph.rasterize(g.grid);

  auto model = BackendRegistry<Model>::instance().create("cpu");
  model->configure(g, ModelOptions{});
  std::vector<PlsIteration> its;
  PlsOptions o;
  o.iterations = 30;
  o.mu = 0.0;
  const auto pls = run_pls(*model, g.grid, u, o, [&](const PlsIteration& s) { its.push_back(s); });
  ASSERT_EQ(its.size(), 31u);
  for (std::size_t i = 1; i < its.size(); ++i)
    EXPECT_LE(its[i].objective, its[i - 1].objective * (1 + 1e-12)) << "iteration " << i;
  EXPECT_LT(its.back().objective, 0.05 * its.front().objective);

  auto fbp_op = BackendRegistry<Fbp>::instance().create("cpu");
  fbp_op->configure(g, FbpOptions{});
  std::vector<double> fbp(g.grid.count());
  fbp_op->reconstruct(u, fbp);
  const double e_pls = rmse(pls, truth), e_fbp = rmse(fbp, truth);
  std::printf("4x8 transducers, 16^3 voxels of 1 mm, SNR 40 dB: RMSE PLS-int %.4f, FBP %.4f (phantom max %.3f)\n",
              e_pls, e_fbp, 1.5);
  EXPECT_LT(e_pls, e_fbp);
  EXPECT_GT(correlation(pls, truth), 0.9);
}

TEST(OatPls, PenaltyKeepsTheObjectiveMonotoneToo) {
  const OatGeometry g = small_geometry(10, 1.2, 3, 6, 20.0, 8.0);
  const auto u = simulate_pressure(g, two_spheres(), Noise{});
  auto model = BackendRegistry<Model>::instance().create("cpu");
  model->configure(g, ModelOptions{});
  std::vector<double> obj;
  PlsOptions o;
  o.iterations = 15;
  o.mu = 1e-3;
  run_pls(*model, g.grid, u, o, [&](const PlsIteration& s) { obj.push_back(s.objective); });
  for (std::size_t i = 1; i < obj.size(); ++i) EXPECT_LE(obj[i], obj[i - 1] * (1 + 1e-12)) << i;
}

}  // namespace tomo::oat::test
