// The fdk::ProjectionFilter contract over the cuda (cuFFT) backend (label gpu; skips without a
// CUDA device).
#include "tests/fdk/projection_filter_contract.hpp"

namespace tomo::fdk::test {

TOMO_CONTRACT_INSTANTIATE_GPU(FdkProjectionFilterContract);

}  // namespace tomo::fdk::test
