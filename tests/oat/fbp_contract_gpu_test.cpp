// The oat::Fbp contract over the cuda backend (label gpu; skips without a CUDA device).
#include "tests/oat/fbp_contract.hpp"

namespace tomo::oat::test {

TOMO_CONTRACT_INSTANTIATE_GPU(OatFbpContract);

}  // namespace tomo::oat::test
