// The glpet::Projector contract over the registry's cpu and GL backends (CI: llvmpipe, never
// skipped; an unavailable GL backend fails).
#include "tests/glpet/projector_contract.hpp"

namespace tomo::glpet::test {

TOMO_CONTRACT_INSTANTIATE(GlpetProjectorContract, Projector);

}  // namespace tomo::glpet::test
