// The oat::SphModel contract over the registry's cpu and GL backends (CI: llvmpipe, never
// skipped; an unavailable GL backend fails).
#include "tests/oat/sph_contract.hpp"

namespace tomo::oat::test {

TOMO_CONTRACT_INSTANTIATE(OatSphContract, SphModel);

}  // namespace tomo::oat::test
