// The strip::PhantomGenerator contract over the cuda backend (label gpu; skips without a CUDA
// device).
#include "tests/strip/simulator_contract.hpp"

namespace tomo::strip::test {

TOMO_CONTRACT_INSTANTIATE_GPU(StripSimulatorContract);

}  // namespace tomo::strip::test
