// The prior's contract over the cpu and GL backends (GL on llvmpipe in CI, never skipped).
#include "tests/pet/prior_contract.hpp"

namespace tomo::pet::test {
TOMO_CONTRACT_INSTANTIATE(PriorContract, PriorOperator);
}
