// The prior's contract on the cuda backend (skipped without a CUDA device).
#include "tests/pet/prior_contract.hpp"

namespace tomo::pet::test {
TOMO_CONTRACT_INSTANTIATE_GPU(PriorContract);
}
