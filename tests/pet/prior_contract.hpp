// Contract suite of the relative difference prior over every backend: value, gradient and
// Hessian diagonal against the cpu double reference, and against finite differences of the
// backend's own value and gradient; gradient and Hessian from one pass against both.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/pet/prior.hpp"
#include "tests/support/backend_contract.hpp"

namespace tomo::pet::test {

struct PriorCase {
  PriorGrid grid{{9, 7, 5}, {1.0, 1.5, 2.0}};
  RdpParams params{.beta = 1.0, .gamma = 2.0, .epsilon = 1e-3};
  std::vector<double> x, kappa;
  PriorCase() {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(0.5, 2.0);
    x.resize(grid.count());
    kappa.resize(grid.count());
    for (auto& v : x) v = u(rng);
    for (std::size_t j = 0; j < kappa.size(); ++j) kappa[j] = j % 11 == 3 ? 0.0 : 0.5 + 0.25 * u(rng);
  }
};

inline std::unique_ptr<PriorOperator> make_prior(const std::string& name, const PriorCase& c, bool with_kappa) {
  auto op = BackendRegistry<PriorOperator>::instance().create(name);
  op->configure(c.grid, c.params, with_kappa ? std::span<const double>(c.kappa) : std::span<const double>());
  return op;
}

class PriorContract : public tomo::test::BackendContract<PriorOperator> {};

TEST_P(PriorContract, MatchesTheCpuReference) {
  const PriorCase c;
  for (bool with_kappa : {false, true}) {
    auto ref = make_prior("cpu", c, with_kappa);
    auto op = make_prior(backend(), c, with_kappa);
    const double tol = is_cpu() ? 1e-14 : 1e-5;
    EXPECT_NEAR(op->value(c.x) / ref->value(c.x), 1.0, tol) << "kappa " << with_kappa;
    EXPECT_LT(relative_l2(op->gradient(c.x), ref->gradient(c.x)), tol) << "kappa " << with_kappa;
    EXPECT_LT(relative_l2(op->hessian_diagonal(c.x), ref->hessian_diagonal(c.x)), tol) << "kappa " << with_kappa;
  }
}

// A grid larger than one tile of the GPU kernels (32×8 voxels, 16 planes along z) in every
// direction, so the halos between tiles and the partial tiles at the edges are exercised.
TEST_P(PriorContract, MatchesTheCpuReferenceAcrossTiles) {
  PriorCase c;
  c.grid = PriorGrid{{37, 19, 35}, {1.0, 1.0, 1.25}};
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0.5, 2.0);
  c.x.resize(c.grid.count());
  c.kappa.resize(c.grid.count());
  for (auto& v : c.x) v = u(rng);
  for (std::size_t j = 0; j < c.kappa.size(); ++j) c.kappa[j] = j % 13 == 5 ? 0.0 : u(rng);
  auto ref = make_prior("cpu", c, true);
  auto op = make_prior(backend(), c, true);
  const double tol = is_cpu() ? 1e-14 : 1e-5;
  EXPECT_NEAR(op->value(c.x) / ref->value(c.x), 1.0, tol);
  EXPECT_LT(relative_l2(op->gradient(c.x), ref->gradient(c.x)), tol);
  EXPECT_LT(relative_l2(op->hessian_diagonal(c.x), ref->hessian_diagonal(c.x)), tol);
}

// Whole tiles of κ = 1 and of κ = 0 (as a field-of-view mask sets it) beside tiles that straddle
// the mask's edge and the image's: a kernel that treats uniform tiles apart must still match the
// reference everywhere, with and without κ, and give exactly 0 where κ = 0.
TEST_P(PriorContract, MatchesTheCpuReferenceOnUniformTiles) {
  PriorCase c;
  c.grid = PriorGrid{{100, 80, 24}, {1.0, 1.0, 1.0}};
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> u(0.5, 2.0);
  c.x.resize(c.grid.count());
  c.kappa.resize(c.grid.count());
  for (auto& v : c.x) v = u(rng);
  for (std::size_t j = 0; j < c.kappa.size(); ++j) {
    const double px = double(j % 100) - 49.5, py = double((j / 100) % 80) - 39.5;
    c.kappa[j] = px * px + py * py < 36.0 * 36.0 ? 1.0 : 0.0;
  }
  for (bool with_kappa : {false, true}) {
    auto ref = make_prior("cpu", c, with_kappa);
    auto op = make_prior(backend(), c, with_kappa);
    const double tol = is_cpu() ? 1e-14 : 1e-5;
    EXPECT_NEAR(op->value(c.x) / ref->value(c.x), 1.0, tol) << "kappa " << with_kappa;
    const std::vector<double> g = op->gradient(c.x);
    EXPECT_LT(relative_l2(g, ref->gradient(c.x)), tol) << "kappa " << with_kappa;
    EXPECT_LT(relative_l2(op->hessian_diagonal(c.x), ref->hessian_diagonal(c.x)), tol) << "kappa " << with_kappa;
    if (with_kappa) {
      std::size_t zeros = 0;
      for (std::size_t j = 0; j < g.size(); ++j)
        if (c.kappa[j] == 0) zeros += g[j] == 0.0;
      EXPECT_EQ(zeros, std::size_t(std::count(c.kappa.begin(), c.kappa.end(), 0.0)));
    }
  }
}

// Central differences of the backend's own value (gradient) and gradient (Hessian diagonal) at
// a few voxels, one of them next to a κ = 0 voxel. Float backends: a larger step.
TEST_P(PriorContract, GradientAndHessianAreTheDerivatives) {
  const PriorCase c;
  auto op = make_prior(backend(), c, true);
  const std::vector<double> g = op->gradient(c.x), h = op->hessian_diagonal(c.x);
  const double step = is_cpu() ? 1e-6 : 2e-2, tol = is_cpu() ? 1e-6 : 2e-2;
  for (std::size_t j : {std::size_t(0), std::size_t(4), std::size_t(40), std::size_t(137), c.grid.count() - 1}) {
    std::vector<double> xp = c.x, xm = c.x;
    xp[j] += step;
    xm[j] -= step;
    const double fd = (op->value(xp) - op->value(xm)) / (2 * step);
    EXPECT_NEAR(fd, g[j], tol * std::max(1.0, std::abs(g[j]))) << "voxel " << j;
    const double fd2 = (op->gradient(xp)[j] - op->gradient(xm)[j]) / (2 * step);
    EXPECT_NEAR(fd2, h[j], tol * std::max(1.0, std::abs(h[j]))) << "voxel " << j;
  }
}

// A flat image has R = 0 and ∇R = 0; κ = 0 voxels take no part at all.
TEST_P(PriorContract, FlatImageAndMaskedVoxels) {
  PriorCase c;
  auto op = make_prior(backend(), c, true);
  const std::vector<double> flat(c.grid.count(), 1.5);
  EXPECT_NEAR(op->value(flat), 0.0, 1e-12);
  for (double v : op->gradient(flat)) EXPECT_NEAR(v, 0.0, 1e-12);
  const std::vector<double> g = op->gradient(c.x);
  for (std::size_t j = 0; j < g.size(); ++j)
    if (c.kappa[j] == 0) {
      EXPECT_EQ(g[j], 0.0) << "voxel " << j;
    }
}

// Gradient and Hessian diagonal from one pass: the cpu reference's numbers (≤ 1e-5 on float
// backends) and the numbers of the backend's own two separate passes (the same terms in the same
// order: equal on cpu, within a few float roundings elsewhere), on one tile and across tiles.
TEST_P(PriorContract, GradientAndHessianInOnePass) {
  std::vector<PriorCase> cases(2);
  PriorCase& across = cases[1];
  across.grid = PriorGrid{{37, 19, 35}, {1.0, 1.0, 1.25}};
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> u(0.5, 2.0);
  across.x.resize(across.grid.count());
  across.kappa.resize(across.grid.count());
  for (auto& v : across.x) v = u(rng);
  for (std::size_t j = 0; j < across.kappa.size(); ++j) across.kappa[j] = j % 13 == 5 ? 0.0 : u(rng);
  // The largest |a − b| over the largest |b|.
  auto max_rel = [](const std::vector<double>& a, const std::vector<double>& b) {
    double worst = 0, scale = 0;
    for (std::size_t j = 0; j < b.size(); ++j) worst = std::max(worst, std::abs(a[j] - b[j])), scale = std::max(scale, std::abs(b[j]));
    return scale > 0 ? worst / scale : worst;
  };
  for (const PriorCase& pc : cases)
    for (bool with_kappa : {false, true}) {
      auto ref = make_prior("cpu", pc, with_kappa);
      auto op = make_prior(backend(), pc, with_kappa);
      const PriorDerivatives both = op->gradient_and_hessian(pc.x);
      ASSERT_EQ(both.gradient.size(), pc.grid.count());
      ASSERT_EQ(both.hessian_diagonal.size(), pc.grid.count());
      const double tol = is_cpu() ? 1e-14 : 1e-5;
      EXPECT_LT(relative_l2(both.gradient, ref->gradient(pc.x)), tol) << "kappa " << with_kappa;
      EXPECT_LT(relative_l2(both.hessian_diagonal, ref->hessian_diagonal(pc.x)), tol) << "kappa " << with_kappa;
      const std::vector<double> g = op->gradient(pc.x), h = op->hessian_diagonal(pc.x);
      if (is_cpu()) {
        EXPECT_EQ(both.gradient, g) << "kappa " << with_kappa;
        EXPECT_EQ(both.hessian_diagonal, h) << "kappa " << with_kappa;
      } else {
        EXPECT_LT(max_rel(both.gradient, g), 1e-6) << "kappa " << with_kappa;
        EXPECT_LT(max_rel(both.hessian_diagonal, h), 1e-6) << "kappa " << with_kappa;
      }
      if (with_kappa)
        for (std::size_t j = 0; j < pc.kappa.size(); ++j)
          if (pc.kappa[j] == 0) {
            EXPECT_EQ(both.gradient[j], 0.0) << "voxel " << j;
            EXPECT_EQ(both.hessian_diagonal[j], 0.0) << "voxel " << j;
          }
    }
}

}  // namespace tomo::pet::test
