// glpet cpu projector beyond the backend contract (projector_contract.hpp, which has its
// adjoint identity): back_ratio/sensitivity consistency, and the line-set probabilities of a
// voxel against the analytic solid-angle fractions.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "tests/glpet/analytic.hpp"
#include "compute/glpet/cpu_projector.hpp"
#include "compute/glpet/monte_carlo.hpp"
#include "tests/glpet/small_system.hpp"

namespace tomo::glpet {
namespace {

using test::random_vector;

TEST(GlpetCpuProjector, BackRatioAndSensitivityAgreeWithBack) {
  const auto sys = test::water_cylinder_system();
  CpuProjector op;
  op.configure(sys);
  const auto y = random_vector(sys.lor_count(), 3);
  auto yt = random_vector(sys.lor_count(), 4);
  yt[5] = 0;  // ỹ = 0 contributes nothing
  std::vector<float> ratio(y.size());
  for (std::size_t l = 0; l < y.size(); ++l) ratio[l] = yt[l] > 0 ? y[l] / yt[l] : 0.0f;
  const auto expect_b = back_host(op, ratio);
  const auto expect_s = back_host(op, std::vector<float>(sys.lor_count(), 1.0f));
  auto by = op.make_lors(), bt = op.make_lors();
  auto bb = op.make_image(), bs = op.make_image();
  by->upload(y);
  bt->upload(yt);
  op.back_ratio(*by, *bt, *bb, bs.get());
  const auto b = download(*bb), s = download(*bs), s2 = sensitivity_host(op);
  for (std::size_t v = 0; v < b.size(); ++v) {
    EXPECT_NEAR(b[v], expect_b[v], 1e-5 * std::fabs(expect_b[v]) + 1e-12);
    EXPECT_NEAR(s[v], expect_s[v], 1e-6 * expect_s[v]);
    EXPECT_NEAR(s2[v], expect_s[v], 1e-6 * expect_s[v]);
  }
}

TEST(GlpetCpuProjector, VoxelColumnConvergesToAnalyticSolidAngles) {
  // No attenuation: the line set's probabilities of one voxel sample against the exact
  // solid-angle fractions (an independent, analytic model). The pixel-centre quadrature
  // errs where the secondary's shadow cuts pixels; the error must shrink as R grows.
  for (const auto& ijk : {std::array<int, 3>{8, 8, 8}, std::array<int, 3>{11, 5, 3}, std::array<int, 3>{2, 13, 14}}) {
    double prev_l1 = 1e9;
    for (int R : {4, 16, 64}) {
      auto sys = test::small_system(16, 2.0, R, 1);
      CpuProjector op;
      op.configure(sys);
      std::vector<float> x(sys.voxel_count(), 0.0f);
      x[sys.grid.index(ijk[0], ijk[1], ijk[2])] = 1.0f;
      const auto col = forward_host(op, x);
      const auto prob =
          test::point_source_probabilities(sys.scanner.pairs[0], sys.grid.centre(ijk[0], ijk[1], ijk[2]));
      double sa = 0, sp = 0, l1 = 0;
      for (std::size_t l = 0; l < prob.size(); ++l) {
        sa += col[l];
        sp += prob[l];
        l1 += std::fabs(col[l] - prob[l]);
        if (prob[l] == 0) {
          EXPECT_EQ(col[l], 0.0f);
        }
      }
      const double total_err = std::fabs(sa / sp - 1);
      std::printf("voxel %d,%d,%d R=%d: total rel err %.2e, L1 rel err %.2e\n", ijk[0], ijk[1], ijk[2], R, total_err,
                  l1 / sp);
      EXPECT_LT(l1 / sp, 0.6 * prev_l1);
      if (R == 64) {
        EXPECT_LT(total_err, 2e-3);
        EXPECT_LT(l1 / sp, 2e-2);
      }
      prev_l1 = l1 / sp;
    }
  }
}

}  // namespace
}  // namespace tomo::glpet
