// SExpRlx on the cuda backend (label gpu; skips without a CUDA device): the host's table
// uploaded before each call gives the cpu's χ² within 1e-9 and gradient within 1e-7 in double.
#include <gtest/gtest.h>

#include "cuda/core/device.hpp"
#include "tests/musr/gpu_test_data.hpp"
#include "tests/musr/sexp_relaxation_data.hpp"

namespace tomo::musr::test {
namespace {

TEST(MusrCudaSExpRlx, NativeTableMatchesTheCpuReference) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const FitData data = sexp_data();
  auto d = make_evaluator("cuda", data, false);
  expect_matches_reference(*d, data, sexp_params(), 1e-9, 1e-7);
  expect_matches_reference(*d, data, perturbed(sexp_params()), 1e-9, 1e-7);
}

}  // namespace
}  // namespace tomo::musr::test
