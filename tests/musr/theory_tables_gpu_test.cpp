// The cuda backend on theories with tabulated functions (label gpu; skips without a CUDA device):
// dynGssKTLF, dynExpKTLF, statGssKTLF, statExpKTLF (host tables uploaded before each call) and
// skewedGss (Dawson's integral on the device) against the double reference: χ² within 1e-9 and
// gradients within 1e-8 (double), 1e-5 and 2e-4 (float), at the tables' parameters and elsewhere,
// and a second call at new parameters rebuilds the tables.
#include <gtest/gtest.h>

#include "cuda/core/device.hpp"
#include "tests/musr/gpu_test_data.hpp"
#include "tests/musr/theory_tables_data.hpp"

namespace tomo::musr::test {
namespace {

TEST(MusrCudaTables, KuboToyabeTablesMatchTheCpuReference) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const FitData data = kt_lf_data(20000);
  const auto p = kt_lf_params();
  auto d = make_evaluator("cuda", data, false);
  expect_matches_reference(*d, data, p, 1e-9, 1e-8);
  expect_matches_reference(*d, data, perturbed(p), 1e-9, 1e-8);
  expect_matches_reference(*d, data, p, 1e-9, 1e-8);
  auto f = make_evaluator("cuda", data, true);
  expect_matches_reference(*f, data, perturbed(p), 1e-5, 2e-4);
}

}  // namespace
}  // namespace tomo::musr::test
