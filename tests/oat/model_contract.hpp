// The oat::Model and oat::Fbp contract every backend passes (included by
// model_contract_test.cpp for cpu/gl-compute and model_contract_gpu_test.cpp for cuda): H, Hᵀ
// and FBP equal the cpu reference within stated tolerances for every variant the backend has,
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
#include "tests/oat/small_geometry.hpp"
#include "tests/support/backend_contract.hpp"

namespace tomo::oat::test {

struct Variant {
  std::string name;
  ModelOptions model;
  FbpOptions fbp;
  double forward_tol, adjoint_tol, fbp_tol, identity_tol;  // identity_tol < 0: reported only
};

// The one place where backend options are set. exact: fp32 weights, 1e-4 relative L2 vs cpu
// and the adjoint identity to 1e-5; hardware: the texture unit's 8-bit weights (forward and
// FBP 2e-2; its adjoint is still the exact scatter, so the identity is only reported).
inline std::vector<Variant> variants_of(const std::string& backend) {
  auto make = [](const char* name, Interpolation i, bool portable, int threads, double ftol, double itol) {
    Variant v{name, {}, {}, ftol, 1e-4, ftol, itol};
    v.model.interpolation = v.fbp.interpolation = i;
    v.model.portable = portable;
    v.model.threads = v.fbp.threads = threads;
    return v;
  };
  using enum Interpolation;
  if (backend == "cpu") return {make("1 thread", exact, false, 1, 1e-12, 1e-12)};
  if (backend == "gl-compute")
    return {make("exact", exact, false, 0, 1e-4, 1e-5), make("hardware", hardware, false, 0, 2e-2, -1),
            make("exact portable", exact, true, 0, 1e-4, 1e-5)};
  return {make("exact", exact, false, 0, 1e-4, 1e-5), make("hardware", hardware, false, 0, 2e-2, -1)};
}

// 12³ voxels of 1 mm, 4 × 8 transducers on 20 mm, a Gaussian EIR: every stage is exercised.
inline OatGeometry contract_geometry() { return small_geometry(12, 1.0, 4, 8, 20.0, 5.0, EirKind::gaussian); }

struct Outputs {
  std::vector<double> hx, hty, fbp;
};

inline Outputs run_backend(const std::string& name, const Variant& v, const OatGeometry& g,
                           const std::vector<double>& x, const std::vector<double>& y) {
  Outputs o{std::vector<double>(g.data_size()), std::vector<double>(g.grid.count()),
            std::vector<double>(g.grid.count())};
  auto model = BackendRegistry<Model>::instance().create(name);
  model->configure(g, v.model);
  model->forward(x, o.hx);
  model->adjoint(y, o.hty);
  model->synchronize();
  if (BackendRegistry<Fbp>::instance().available(name).ok) {
    auto fbp = BackendRegistry<Fbp>::instance().create(name);
    fbp->configure(g, v.fbp);
    fbp->reconstruct(y, o.fbp);
    fbp->synchronize();
  }
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
      if (BackendRegistry<Fbp>::instance().available(backend()).ok) {
        const double eb = relative_l2(out.fbp, ref.fbp);
        std::printf(", fbp %.3g", eb);
        EXPECT_LE(eb, v.fbp_tol) << v.name << " fbp";
      }
      std::printf("\n");
    }
  }
};

TEST_P(OatModelContract, ForwardAdjointAndFbpMatchCpu) { check_against_cpu(); }

}  // namespace tomo::oat::test
