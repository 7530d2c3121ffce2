// The oat::Model contract over the registry's cpu and GL backends (CI: llvmpipe,
// never skipped; an unavailable GL backend fails).
#include "tests/oat/model_contract.hpp"

namespace tomo::oat::test {

TOMO_CONTRACT_INSTANTIATE(OatModelContract, Model);

}  // namespace tomo::oat::test
