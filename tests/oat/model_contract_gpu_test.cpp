// The oat::Model contract over the cuda backend (label gpu; skips without a CUDA
// device).
#include "tests/oat/model_contract.hpp"

namespace tomo::oat::test {

TOMO_CONTRACT_INSTANTIATE_GPU(OatModelContract);

}  // namespace tomo::oat::test
