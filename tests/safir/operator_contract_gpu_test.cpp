// The safir::ListModeOperator contract over the cuda backend (label gpu; skips without a
// CUDA device).
#include "cuda/core/device.hpp"
#include "tests/safir/operator_contract.hpp"

namespace tomo::safir::test {

TOMO_CONTRACT_INSTANTIATE_GPU(SafirOperatorContract);

TEST(SafirCuda, ReportsAvailabilityConsistently) {
  const auto a = BackendRegistry<ListModeOperator>::instance().available("cuda");
  EXPECT_EQ(a.ok, tomo::cuda::have_device()) << a.why;
}

}  // namespace tomo::safir::test
