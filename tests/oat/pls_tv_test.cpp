// PLS with TV and the bound (FISTA, compute/oat/pls_fista.cpp) and μ's scale: on the undersampled
// test case (4 × 8 transducers, 16³ voxels of 1 mm, 40 dB; docs/oat.md) TV-PLS with α ≥ 0 has an
// RMSE at least 20 % below today's quadratic PLS (CG, μ = 0) on cpu and on gl-compute; FISTA's
// objective never increases and the bound holds; μ is dimensionless (a Grüneisen 10× larger
// gives the same image / 10 with the same μ, for both penalties).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/oat/model.hpp"
#include "compute/oat/phantom.hpp"
#include "compute/oat/pls.hpp"
#include "tests/oat/small_geometry.hpp"
#include "tests/support/gl_test.hpp"

namespace tomo::oat::test {
namespace {

struct Undersampled {
  OatGeometry g = small_geometry(16, 1.0, 4, 8, 25.0, 10.0);
  std::vector<double> u, truth;
  Undersampled() {
    Noise noise;
    noise.snr_db = 40;
    u = simulate_pressure(g, two_spheres(), noise);
    truth = two_spheres().rasterize(g.grid);
  }
};

// RMSE of quadratic PLS (CG, μ = 0) and of TV-PLS (μ = 0.1, α ≥ 0), 30 iterations each, on one
// backend; checks FISTA's objective and the bound on the way.
std::pair<double, double> quadratic_and_tv(const std::string& backend) {
  const Undersampled c;
  auto model = BackendRegistry<Model>::instance().create(backend);
  model->configure(c.g, ModelOptions{});
  PlsOptions q;
  q.iterations = 30;
  const double e_q = rmse(run_pls(*model, c.g.grid, c.u, q), c.truth);
  PlsOptions tv = q;
  tv.regulariser = Regulariser::tv;
  tv.nonnegative = true;
  tv.mu = 0.1;
  std::vector<double> objective;
  const auto a = run_pls(*model, c.g.grid, c.u, tv, [&](const PlsIteration& s) {
    objective.push_back(s.objective);
    EXPECT_GT(s.scale.lambda, 0.0);
    EXPECT_GT(s.scale.alpha, 0.0);
  });
  EXPECT_EQ(objective.size(), 31u);
  for (std::size_t i = 1; i < objective.size(); ++i)
    EXPECT_LE(objective[i], objective[i - 1]) << backend << ", iteration " << i;
  EXPECT_GE(*std::min_element(a.begin(), a.end()), 0.0);
  const double e_tv = rmse(a, c.truth);
  std::printf("%s, 4x8 transducers, 16^3 x 1 mm, 40 dB, 30 iterations: RMSE quadratic PLS %.4f, TV-PLS %.4f (%.0f %% below)\n",
              backend.c_str(), e_q, e_tv, 100 * (1 - e_tv / e_q));
  return {e_q, e_tv};
}

}  // namespace

TEST(OatPlsTv, TvBeatsQuadraticPlsByAFifthOnCpu) {
  const auto [e_q, e_tv] = quadratic_and_tv("cpu");
  EXPECT_NEAR(e_q, 0.053, 0.001);  // docs/oat.md: quadratic PLS 0.053 vs FBP 0.145
  EXPECT_LE(e_tv, 0.8 * e_q);       // measured 0.0151
}

TEST(OatPlsTv, TvBeatsQuadraticPlsOnGlCompute) {
  (void)tomo::test::gl_context();
  const auto [e_q, e_tv] = quadratic_and_tv("gl-compute");
  EXPECT_LE(e_tv, 0.8 * e_q);
}

// μλR and μλᾱ·TV: with H 10× larger (Grüneisen) and the same data, the same μ gives the image
// / 10 (to rounding) — an unscaled μ would weigh the penalty 100× more against the data.
TEST(OatPlsTv, MuIsDimensionless) {
  OatGeometry g = small_geometry(10, 1.2, 3, 6, 20.0, 8.0);
  const auto u = simulate_pressure(g, two_spheres(), Noise{});
  for (const Regulariser r : {Regulariser::quadratic, Regulariser::tv}) {
    std::vector<std::vector<double>> images;
    for (const double gruneisen : {0.8, 8.0}) {
      g.gruneisen = gruneisen;
      auto model = BackendRegistry<Model>::instance().create("cpu");
      model->configure(g, ModelOptions{});
      PlsOptions o;
      o.iterations = 6;
      o.mu = 0.05;
      o.regulariser = r;
      images.push_back(run_pls(*model, g.grid, u, o));
    }
    for (double& v : images[1]) v *= 10.0;
    EXPECT_LT(relative_l2(images[1], images[0]), 1e-9) << to_string(r);
  }
}

}  // namespace tomo::oat::test
