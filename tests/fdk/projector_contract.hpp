// The fdk::ConeBeamProjector contract every backend passes (included by
// projector_contract_test.cpp for the backends built here; a GPU file will include it for cuda):
// the adjoint identity ⟨Ax, y⟩ = ⟨x, Aᵀy⟩ in float, A, Aᵀ and the voxel-driven B against the
// cpu reference, a subset of views giving those views' rows, and wrong sizes refused.
#pragma once
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/fdk/forward_projector.hpp"
#include "compute/fdk/geometry.hpp"
#include "compute/fdk/metrics.hpp"
#include "compute/fdk/pipeline.hpp"
#include "renderer/gl/engine.hpp"
#include "tests/support/backend_contract.hpp"

namespace tomo::fdk::test {

// An odd grid seen by 9 views of a 24×19 detector that covers it.
inline ConeGeometry contract_geometry() {
  CArmGeometry c;
  c.projections = 9;
  c.arc_deg = 220.0;
  c.sx = 24;
  c.sy = 19;
  c.pixel_mm = 20.0;
  return {Grid3::centred({21, 13, 11}, {9.0, 11.0, 13.0}), c.sx, c.sy, c.matrices()};
}

inline std::vector<float> random_vector(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& e : v) e = d(rng);
  return v;
}

class FdkProjectorContract : public tomo::test::BackendContract<ConeBeamProjector> {
 protected:
  std::unique_ptr<ConeBeamProjector> make(const std::string& name, const ConeGeometry& g) {
    auto op = BackendRegistry<ConeBeamProjector>::instance().create(name);
    op->setup(g);
    return op;
  }
};

// The `gl` projector samples by the texture unit: fp32 on software GL, 8-bit weights on NVIDIA
// (measured 3–4e-4 from the cpu on an H100); every other backend, and gl on llvmpipe, to 1e-5.
inline double contract_tolerance(const std::string& backend) {
  return backend == "gl" && !gl::availability().software ? 1e-3 : 1e-5;
}

TEST_P(FdkProjectorContract, BackIsTheAdjointOfForward) {
  const ConeGeometry g = contract_geometry();
  auto op = make(backend(), g);
  const auto x = random_vector(g.grid.count(), 1), y = random_vector(g.views() * g.image_size(), 2);
  std::vector<float> ax(y.size()), aty(x.size());
  op->forward(x, ax);
  op->back(y, aty);
  op->synchronize();
  double lhs = 0, rhs = 0;
  for (std::size_t i = 0; i < y.size(); ++i) lhs += double(ax[i]) * y[i];
  for (std::size_t i = 0; i < x.size(); ++i) rhs += double(x[i]) * aty[i];
  EXPECT_GT(lhs, 1.0);
  EXPECT_NEAR(lhs / rhs, 1.0, contract_tolerance(backend()));
}

TEST_P(FdkProjectorContract, MatchesCpuAndSubsetsAreRows) {
  const ConeGeometry g = contract_geometry();
  auto op = make(backend(), g);
  auto ref = make("cpu", g);
  const auto x = random_vector(g.grid.count(), 3), y = random_vector(g.views() * g.image_size(), 4);
  std::vector<float> a(y.size()), a_ref(y.size()), b(x.size()), b_ref(x.size());
  op->forward(x, a);
  ref->forward(x, a_ref);
  op->back(y, b);
  ref->back(y, b_ref);
  op->synchronize();
  EXPECT_LE(relative_l2(a, a_ref), contract_tolerance(backend()));
  EXPECT_LE(relative_l2(b, b_ref), 1e-5);
  const std::vector<int> views{7, 0, 4};
  std::vector<float> sub(views.size() * g.image_size());
  op->forward(x, sub, views);
  op->synchronize();
  for (std::size_t k = 0; k < views.size(); ++k)
    for (std::size_t p = 0; p < g.image_size(); ++p)
      EXPECT_NEAR(sub[k * g.image_size() + p], a[views[k] * g.image_size() + p], 1e-5f * (1 + a[p]));
}

// B, the voxel-driven stand-in for Aᵀ of SIRT, OS-SART and TV: the same on every backend, and
// near the transpose on smooth data (a sum over a voxel's rays replaced by one sample each).
TEST_P(FdkProjectorContract, VoxelBackMatchesCpuAndApproximatesTheAdjoint) {
  const ConeGeometry g = contract_geometry();
  auto op = make(backend(), g);
  auto ref = make("cpu", g);
  const auto y = random_vector(g.views() * g.image_size(), 5);
  std::vector<float> b(g.grid.count()), b_ref(g.grid.count());
  op->back_voxel(y, b);
  ref->back_voxel(y, b_ref);
  op->synchronize();
  EXPECT_LE(relative_l2(b, b_ref), 1e-5);
  // Smooth data: x = 1 on the grid, y = 1 on the detector; ⟨Ax, y⟩ vs ⟨x, By⟩.
  const std::vector<float> ones_x(g.grid.count(), 1.0f), ones_y(y.size(), 1.0f);
  std::vector<float> ax(y.size()), by(g.grid.count());
  op->forward(ones_x, ax);
  op->back_voxel(ones_y, by);
  op->synchronize();
  double lhs = 0, rhs = 0;
  for (float e : ax) lhs += e;
  for (float e : by) rhs += e;
  EXPECT_NEAR(rhs / lhs, 1.0, 0.1);
}

TEST_P(FdkProjectorContract, WrongSizesAreRefused) {
  const ConeGeometry g = contract_geometry();
  auto op = make(backend(), g);
  std::vector<float> x(g.grid.count()), short_stack(g.image_size());
  EXPECT_THROW(op->forward(x, short_stack), Error);
  const std::vector<int> bad_view{g.views()};
  EXPECT_THROW(op->forward(x, short_stack, bad_view), Error);
}

}  // namespace tomo::fdk::test
