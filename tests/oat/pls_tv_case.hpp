// The undersampled test case of the PLS tests (4 × 8 transducers, 16³ voxels of 1 mm, 40 dB) and
// its TV-vs-quadratic comparison on one backend, shared by the cpu/gl-compute and the cuda tests.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>

#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/oat/model.hpp"
#include "compute/oat/phantom.hpp"
#include "compute/oat/pls.hpp"
#include "tests/oat/small_geometry.hpp"

namespace tomo::oat::test {

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
inline std::pair<double, double> quadratic_and_tv(const std::string& backend) {
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

}  // namespace tomo::oat::test
