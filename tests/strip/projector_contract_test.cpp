// The strip::ListModeProjector contract over the registry's cpu and GL backends (CI: llvmpipe,
// never skipped; an unavailable GL backend fails).
#include "tests/strip/projector_contract.hpp"

namespace tomo::strip::test {

TOMO_CONTRACT_INSTANTIATE(StripProjectorContract, ListModeProjector);

}  // namespace tomo::strip::test
