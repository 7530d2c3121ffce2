// The oat::SphModel contract every backend passes (included by sph_contract_test.cpp for cpu and
// gl-compute and sph_contract_gpu_test.cpp for cuda): H_sph and H_sphᵀ equal the cpu reference
// (double) within kFloatTolerance for point and rectangular transducers, and the adjoint identity
// Re⟨Hx, y⟩ = ⟨x, Hᵀy⟩ holds (cpu ≤ 1e-12, float ≤ 1e-5, normalised by ‖Hx‖‖y‖).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <string>
#include <vector>

#include "compute/core/metrics.hpp"
#include "tests/oat/sph_fixtures.hpp"
#include "tests/support/backend_contract.hpp"

namespace tomo::oat::test {

class OatSphContract : public tomo::test::BackendContract<SphModel> {
 protected:
  void check_against_cpu() {
    const OatGeometry g = small_geometry(10, 1.0, 3, 6, 20.0, 5.0, EirKind::gaussian);
    const std::vector<double> x = random_positive(g.grid.count(), 21);
    for (const SphOptions& o : sph_contract_options(g)) {
      const auto yr = random_positive(2 * o.setup.data_size(g), 22);
      std::vector<std::complex<double>> y(o.setup.data_size(g));
      for (std::size_t i = 0; i < y.size(); ++i) y[i] = {yr[2 * i] - 1.0, yr[2 * i + 1] - 1.0};
      const SphOutputs ref = run_sph("cpu", g, o, x, y);
      const SphOutputs out = run_sph(backend(), g, o, x, y);
      double lhs = 0, rhs = 0, nhx = 0, ny = 0;
      for (std::size_t i = 0; i < y.size(); ++i)
        lhs += (out.hx[i] * std::conj(y[i])).real(), nhx += std::norm(out.hx[i]), ny += std::norm(y[i]);
      for (std::size_t i = 0; i < x.size(); ++i) rhs += x[i] * out.hty[i];
      const double identity = std::abs(lhs - rhs) / std::sqrt(nhx * ny);
      const double ef = rel_l2(out.hx, ref.hx), ea = relative_l2(out.hty, ref.hty);
      std::printf("%s H_sph, %d face point(s), %d frequencies: forward %.3g, adjoint %.3g, identity %.3g\n",
                  backend().c_str(), o.setup.face_points(), o.setup.frequencies, ef, ea, identity);
      const bool cpu = is_cpu();
      EXPECT_LE(ef, cpu ? 1e-12 : kSphFloatTolerance) << "forward";
      EXPECT_LE(ea, cpu ? 1e-12 : kSphFloatTolerance) << "adjoint";
      EXPECT_LE(identity, cpu ? 1e-12 : 1e-5) << "adjoint identity";
    }
  }
};

TEST_P(OatSphContract, ForwardAndAdjointMatchCpu) { check_against_cpu(); }

}  // namespace tomo::oat::test
