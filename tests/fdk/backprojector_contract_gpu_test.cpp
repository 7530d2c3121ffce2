// The fdk::ConeBeamBackprojector contract over the cuda backend (label gpu; skips without a
// CUDA device).
#include "tests/fdk/backprojector_contract.hpp"

namespace tomo::fdk::test {

TOMO_CONTRACT_INSTANTIATE_GPU(FdkBackprojectorContract);

}  // namespace tomo::fdk::test
