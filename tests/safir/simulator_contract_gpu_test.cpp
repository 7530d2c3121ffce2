// The safir::EventGenerator contract over the cuda backend (label gpu; skips without a CUDA
// device).
#include "tests/safir/simulator_contract.hpp"

namespace tomo::safir::test {

TOMO_CONTRACT_INSTANTIATE_GPU(SafirSimulatorContract);

}  // namespace tomo::safir::test
