// The safir::ListModeOperator contract over the registry's cpu and GL backends (CI: llvmpipe,
// never skipped; an unavailable GL backend fails).
#include "tests/safir/operator_contract.hpp"

namespace tomo::safir::test {

TOMO_CONTRACT_INSTANTIATE(SafirOperatorContract, ListModeOperator);

}  // namespace tomo::safir::test
