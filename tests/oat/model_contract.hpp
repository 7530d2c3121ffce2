// The oat::Model contract every backend passes (included by model_contract_test.cpp for
// cpu/gl-compute and model_contract_gpu_test.cpp for cuda; the FBP's is fbp_contract.hpp): H and Hᵀ
// equal the cpu reference within stated tolerances for every variant the backend has,
// and ⟨Hx, y⟩ = ⟨x, Hᵀy⟩ (cpu ≤ 1e-12, fp32 exact ≤ 1e-5; hardware only reported).
#pragma once
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/metrics.hpp"
#include "compute/oat/model.hpp"
#include "compute/oat/phantom.hpp"
#include "tests/oat/contract_variants.hpp"
#include "tests/oat/small_geometry.hpp"
#include "tests/support/backend_contract.hpp"

namespace tomo::oat::test {

struct Outputs {
  std::vector<double> hx, hty;
};

inline Outputs run_backend(const std::string& name, const Variant& v, const OatGeometry& g,
                           const std::vector<double>& x, const std::vector<double>& y) {
  Outputs o{std::vector<double>(g.data_size()), std::vector<double>(g.grid.count())};
  auto model = BackendRegistry<Model>::instance().create(name);
  model->configure(g, v.model);
  model->forward(x, o.hx);
  model->adjoint(y, o.hty);
  model->synchronize();
  return o;
}

class OatModelContract : public tomo::test::BackendContract<Model> {
 protected:
  void check_against_cpu() {
    const OatGeometry g = contract_geometry();
    OatPhantom ph;
    ph.spheres = {{{1.0, -0.5, 0.5}, 3.0, 1.0, 0.6}};
    const std::vector<double> x = random_positive(g.grid.count(), 11);
    const std::vector<double> y = simulate_pressure(g, ph, Noise{});  // signed, realistic data
    const Variant ref_variant{"cpu", {}, {}, 0, 0, 0, 0};
    const Outputs ref = run_backend("cpu", ref_variant, g, x, y);
    const bool software = BackendRegistry<Model>::instance().available(backend()).software;
    for (const Variant& v : variants_of(backend())) {
      Outputs out;
      try {
        out = run_backend(backend(), v, g, x, y);
      } catch (const UnavailableError& e) {
        std::printf("%s %s: refused on software GL: %s\n", backend().c_str(), v.name.c_str(), e.what());
        EXPECT_TRUE(software) << v.name << ": only software GL may refuse: " << e.what();
        continue;
      }
      const double ef = relative_l2(out.hx, ref.hx), ea = relative_l2(out.hty, ref.hty);
      const double ax_y = tomo::test::inner<double, double>(out.hx, y);
      const double x_aty = tomo::test::inner<double, double>(x, out.hty);
      const double identity = std::abs(ax_y - x_aty) /
                              std::sqrt(tomo::test::inner<double, double>(out.hx, out.hx) *
                                        tomo::test::inner<double, double>(y, y));
      std::printf("%s %s: forward %.3g, adjoint %.3g, identity %.3g", backend().c_str(), v.name.c_str(), ef, ea,
                  identity);
      EXPECT_LE(ef, v.forward_tol) << v.name << " forward";
      EXPECT_LE(ea, v.adjoint_tol) << v.name << " adjoint";
      if (v.identity_tol >= 0) {
        EXPECT_LE(identity, v.identity_tol) << v.name << " adjoint identity";
      }
      std::printf("\n");
    }
  }
};

TEST_P(OatModelContract, ForwardAndAdjointMatchCpu) { check_against_cpu(); }

}  // namespace tomo::oat::test
