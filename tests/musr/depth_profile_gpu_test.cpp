// PDepthProfile on the cuda backend (label gpu; skips without a CUDA device): the host tables
// uploaded before each call give the cpu's χ² within 1e-9 and gradient within 1e-7 in double.
#include <gtest/gtest.h>

#include "cuda/core/device.hpp"
#include "tests/musr/depth_profile_data.hpp"
#include "tests/musr/gpu_test_data.hpp"

namespace tomo::musr::test {
namespace {

TEST(MusrCudaDepthProfile, NativeTablesMatchTheCpuReference) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const FitData data = depth_data();
  auto d = make_evaluator("cuda", data, false);
  expect_matches_reference(*d, data, depth_params(), 1e-9, 1e-7);
  expect_matches_reference(*d, data, perturbed(depth_params()), 1e-9, 1e-7);
}

}  // namespace
}  // namespace tomo::musr::test
