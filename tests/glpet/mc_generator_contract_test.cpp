// The glpet::McGenerator contract over the cpu backend (mc_generator_contract.hpp).
#include "tests/glpet/mc_generator_contract.hpp"

namespace tomo::glpet::test {

TOMO_CONTRACT_INSTANTIATE(GlpetMcGeneratorContract, McGenerator);

}  // namespace tomo::glpet::test
