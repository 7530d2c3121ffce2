// The fit types μ⁻, RRF and β-NMR on cuda (label gpu; skips without a CUDA device): the
// simulated cases of fit_types_test give the cpu's χ² within 1e-9 and gradient within 1e-7.
#include <gtest/gtest.h>

#include "tests/musr/fit_types_data.hpp"

namespace tomo::musr {
namespace {

TEST(MusrFitTypesGpu, CudaEqualsCpuOnEveryNewFitType) {
  if (!BackendRegistry<Chi2Evaluator>::instance().available("cuda").ok) GTEST_SKIP() << "no CUDA device";
  int checked = 0;
  for (const auto& d : test::backend_differences("cuda")) {
    ++checked;
    EXPECT_LE(d.chi2_rel, 1e-9) << d.name;
    EXPECT_LE(d.grad_rel, 1e-7) << d.name;
    std::printf("%-30s chi2 %.2e  gradient %.2e\n", d.name.c_str(), d.chi2_rel, d.grad_rel);
  }
  EXPECT_EQ(checked, 4);
}

}  // namespace
}  // namespace tomo::musr
