// The fdk::ConeBeamBackprojector contract every backend passes (included by
// backprojector_contract_test.cpp for cpu/gl/gl-compute and backprojector_contract_gpu_test.cpp
// for cuda): back-projection of the shared small stack against the cpu reference, with exact
// interpolation (≤ 1e-4 relative L2) and with the backend's fast sampler (≤ 5e-3, ≥ 60 dB PSNR
// in RabbitCT HU; see interpolation_budget_test.cpp), on cubic and odd grids. The operator is
// back-projection only: it has no forward pair, hence no adjoint identity.
#pragma once
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

#include "compute/fdk/backprojector.hpp"
#include "compute/fdk/metrics.hpp"
#include "compute/fdk/pipeline.hpp"
#include "tests/fdk/small_stack.hpp"
#include "tests/support/backend_contract.hpp"

namespace tomo::fdk::test {

// The one place a backend is made and configured for the contract (options go here).
inline VolumeF contract_backprojection(const std::string& backend, const Grid3& grid, Interpolation interpolation,
                                       int per_launch = 0) {
  return backproject_small_stack(backend, grid, interpolation, per_launch);
}

class FdkBackprojectorContract : public tomo::test::BackendContract<ConeBeamBackprojector> {
 protected:
  void expect_exact(const Grid3& grid, const char* what) {
    const double err = relative_l2(contract_backprojection(backend(), grid, Interpolation::exact).data,
                                   contract_backprojection("cpu", grid, Interpolation::exact).data);
    std::printf("%s exact vs cpu, %s: relative L2 %.3e\n", backend().c_str(), what, err);
    EXPECT_LE(err, 1e-4) << what;
  }
};

TEST_P(FdkBackprojectorContract, ExactInterpolationMatchesCpu) {
  expect_exact(rabbit_grid(32), "32^3");
  expect_exact(rabbit_grid(64), "64^3");
}

TEST_P(FdkBackprojectorContract, SamplerInterpolationIsCloseToCpu) {
  // 32³ with 7 projections per launch (an odd launch size), 64³ with the backend's default.
  for (const auto& [L, per_launch] : {std::array<int, 2>{32, 7}, std::array<int, 2>{64, 0}}) {
    const Grid3 grid = rabbit_grid(L);
    const VolumeF ref = contract_backprojection("cpu", grid, Interpolation::exact);
    const VolumeF v = contract_backprojection(backend(), grid, Interpolation::hardware, per_launch);
    const double err = relative_l2(v.data, ref.data);
    const std::array<float, 2> hu{50000.0f, 0.0f};
    const RabbitMetric m = rabbit_metric(to_hu(v, hu), to_hu(ref, hu));
    std::printf("%s sampler vs cpu, %d^3: relative L2 %.3e, PSNR %.1f dB, max %g HU\n", backend().c_str(), L, err,
                m.psnr_db, m.max_abs);
    EXPECT_LE(err, 5e-3) << L;  // CPU emulation of 8-bit weights: 1.6e-3
    EXPECT_GE(m.psnr_db, 60.0) << L;
  }
}

TEST_P(FdkBackprojectorContract, OddGridSizesMatchCpu) {
  expect_exact(Grid3::centred({21, 13, 11}, {9.0, 11.0, 13.0}), "21x13x11");
  expect_exact(Grid3::centred({37, 29, 19}, {5.0, 6.0, 7.0}), "37x29x19");
}

}  // namespace tomo::fdk::test
