// The oat::SphModel contract over the cuda backend (label gpu; skips without a CUDA device).
#include "tests/oat/sph_contract.hpp"

namespace tomo::oat::test {

TOMO_CONTRACT_INSTANTIATE_GPU(OatSphContract);

}  // namespace tomo::oat::test
