// libCalcMeanFieldsLEM's TMeanFieldsForScSingleLayer on the cuda backend (label gpu; skips without a
// CUDA device): the host tables read at the profile indices give the cpu's χ² within 1e-9 and
// gradient within 1e-7, at the example's point and with unequal layer weights.
#include <gtest/gtest.h>

#include "cuda/core/device.hpp"
#include "tests/musr/gpu_test_data.hpp"
#include "tests/musr/mean_fields_data.hpp"

namespace tomo::musr::test {
namespace {

TEST(MusrCudaMeanFields, NativeTablesMatchTheCpuReference) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const FitData data = mean_data();
  auto d = make_evaluator("cuda", data, false);
  expect_matches_reference(*d, data, mean_fitted(), 1e-9, 1e-7);
  expect_matches_reference(*d, data, mean_weighted(), 1e-9, 1e-7);
}

}  // namespace
}  // namespace tomo::musr::test
