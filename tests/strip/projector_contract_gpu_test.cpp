// The strip::ListModeProjector contract over the cuda backend (label gpu; skips without a
// CUDA device).
#include "cuda/core/device.hpp"
#include "tests/strip/projector_contract.hpp"

namespace tomo::strip::test {

TOMO_CONTRACT_INSTANTIATE_GPU(StripProjectorContract);

TEST(StripCuda, ReportsAvailabilityConsistently) {
  const auto a = BackendRegistry<ListModeProjector>::instance().available("cuda");
  EXPECT_EQ(a.ok, tomo::cuda::have_device()) << a.why;
}

}  // namespace tomo::strip::test
