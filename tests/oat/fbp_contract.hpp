// The oat::Fbp contract every backend passes (included by fbp_contract_test.cpp for cpu and
// gl-compute, fbp_contract_gpu_test.cpp for cuda): the FBP image of simulated blurred-sphere
// data equals the cpu (double) reference within each variant's stated tolerance.
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
#include "tests/support/backend_contract.hpp"

namespace tomo::oat::test {

inline std::vector<double> fbp_image(const std::string& name, const FbpOptions& options, const OatGeometry& g,
                                     const std::vector<double>& pressure) {
  std::vector<double> image(g.grid.count());
  auto fbp = BackendRegistry<Fbp>::instance().create(name);
  fbp->configure(g, options);
  fbp->reconstruct(pressure, image);
  fbp->synchronize();
  return image;
}

class OatFbpContract : public tomo::test::BackendContract<Fbp> {
 protected:
  void check_against_cpu() {
    const OatGeometry g = contract_geometry();
    OatPhantom ph;
    ph.spheres = {{{1.0, -0.5, 0.5}, 3.0, 1.0, 0.6}};
    const std::vector<double> y = simulate_pressure(g, ph, Noise{});
    const std::vector<double> ref = fbp_image("cpu", FbpOptions{}, g, y);
    const double ref_norm2 = tomo::test::inner<double, double>(ref, ref);
    ASSERT_GT(ref_norm2, 0.0) << "the reference image is empty";
    const bool software = BackendRegistry<Fbp>::instance().available(backend()).software;
    for (const Variant& v : variants_of(backend())) {
      std::vector<double> got;
      try {
        got = fbp_image(backend(), v.fbp, g, y);
      } catch (const UnavailableError& e) {
        std::printf("%s %s: refused on software GL: %s\n", backend().c_str(), v.name.c_str(), e.what());
        EXPECT_TRUE(software) << v.name << ": only software GL may refuse: " << e.what();
        continue;
      }
      const double e = relative_l2(got, ref);
      std::printf("%s %s: fbp %.3g\n", backend().c_str(), v.name.c_str(), e);
      EXPECT_LE(e, v.fbp_tol) << v.name << " fbp";
    }
  }
};

TEST_P(OatFbpContract, ImageMatchesCpu) { check_against_cpu(); }

}  // namespace tomo::oat::test
