// cuda (label gpu; skips without a CUDA device): interleaved_steps.hpp on the tiled and fused passes.
#include "cuda/core/device.hpp"
#include "tests/safir/interleaved_steps.hpp"

namespace tomo::safir::test {
namespace {

TEST(SafirInterleavedStepsGpu, CudaTiledAndFused) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  check_interleaved_steps("cuda", Pass::tiled);
  check_interleaved_steps("cuda", Pass::fused);
}

}  // namespace
}  // namespace tomo::safir::test
