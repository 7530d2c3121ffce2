// The glpet::Projector contract over the cuda backend (label gpu; skips without a CUDA device).
#include "tests/glpet/projector_contract.hpp"

namespace tomo::glpet::test {

TOMO_CONTRACT_INSTANTIATE_GPU(GlpetProjectorContract);

}  // namespace tomo::glpet::test
