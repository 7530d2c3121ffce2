// TV-PLS with α ≥ 0 against quadratic PLS on the undersampled test case with the cuda model
// (tests/oat/pls_tv_case.hpp): at least 20 % lower RMSE, as on cpu and gl-compute.
#include <gtest/gtest.h>

#include "cuda/core/device.hpp"
#include "tests/oat/pls_tv_case.hpp"

namespace tomo::oat::test {

TEST(OatPlsTvGpu, TvBeatsQuadraticPlsByAFifthOnCuda) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const auto [e_q, e_tv] = quadratic_and_tv("cuda");
  EXPECT_LE(e_tv, 0.8 * e_q);
}

}  // namespace tomo::oat::test
