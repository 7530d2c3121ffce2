// The strip::ListModeProjector contract over the cuda backend (label gpu; skips without a
// CUDA device).
#include "tests/strip/projector_contract.hpp"

namespace tomo::strip::test {

TOMO_CONTRACT_INSTANTIATE_GPU(StripProjectorContract);

}  // namespace tomo::strip::test
