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
#include "tests/oat/pls_tv_case.hpp"
#include "tests/oat/small_geometry.hpp"
#include "tests/support/gl_test.hpp"

namespace tomo::oat::test {
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
