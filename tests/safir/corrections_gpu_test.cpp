// safir's correction terms (docs/pet.md) on cuda: attenuation, randoms and scatter terms give
// the cpu reference's images (the host path over the backend's forward and back passes).
#include <gtest/gtest.h>

#include <cstdio>

#include "compute/core/metrics.hpp"
#include "tests/safir/corrections_case.hpp"

namespace tomo::safir {
namespace {

TEST(SafirCorrectionsCuda, AttenuationRandomsAndScatterMatchTheCpuReference) {
  static const test::CorrectionCase c(0.05, 0.2, 0.15, 13);
  const pet::AttenuationMap mu = c.mu_map();
  const auto pos = c.scanner.positions();
  const auto survival = [&](std::uint32_t a, std::uint32_t b) { return mu.survival(pos[a], pos[b]); };
  for (int subsets : {1, 4}) {
    const auto cpu = test::reconstruct_with(c, "cpu", survival, true, 0.15, true, 4, subsets);
    const auto cuda = test::reconstruct_with(c, "cuda", survival, true, 0.15, true, 4, subsets);
    const double d = relative_l2(cuda, cpu);
    std::printf("safir cuda vs cpu with attenuation, randoms and scatter, %d subsets: %.2e\n", subsets, d);
    EXPECT_LT(d, 1e-4);
  }
}

}  // namespace
}  // namespace tomo::safir
