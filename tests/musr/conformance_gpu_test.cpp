// The conformance suite's cases on cuda (label gpu; skips without a CUDA device): every case
// that runs (all the manifest's agree and differs lines) computes χ² within 1e-9 and the gradient within 1e-7 of the cpu, in double, at the
// parameters musrfit fitted.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "tests/musr/conformance.hpp"

namespace tomo::musr {
namespace {

TEST(MusrfitSuiteGpu, CudaEqualsCpuOnEveryCaseThatRuns) {
  if (!BackendRegistry<Chi2Evaluator>::instance().available("cuda").ok) GTEST_SKIP() << "no CUDA device";
  const std::filesystem::path dir = std::filesystem::path(TOMO_SOURCE_DIR) / "tests/musr/musrfit";
  int checked = 0, runs = 0;
  for (const auto& l : read_manifest(dir / "cases.tsv")) {
    if (l.status == CaseStatus::data) continue;
    runs += l.status != CaseStatus::refused;
    const auto t0 = std::chrono::steady_clock::now();
    const auto d = backend_difference(dir, l.name, "cuda");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!d) continue;
    ++checked;
    EXPECT_LE(d->chi2_rel, 1e-9) << l.name;
    EXPECT_LE(d->grad_rel, 1e-7) << l.name;
    // The seconds per case (cpu and cuda together) say where the suite's time goes.
    std::printf("%-70s chi2 %.2e  gradient %.2e  %6.1f s\n", l.name.c_str(), d->chi2_rel, d->grad_rel, seconds);
    std::fflush(stdout);
  }
  EXPECT_EQ(checked, runs);  // every case the manifest says runs, none dropped
  EXPECT_GE(runs, 44);
}

}  // namespace
}  // namespace tomo::musr
