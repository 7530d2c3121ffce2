// The glpet::McGenerator contract over the cuda backend (label gpu; skips without a CUDA device).
#include "tests/glpet/mc_generator_contract.hpp"

namespace tomo::glpet::test {

TOMO_CONTRACT_INSTANTIATE_GPU(GlpetMcGeneratorContract);

}  // namespace tomo::glpet::test
