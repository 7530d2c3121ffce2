// The safir::EventGenerator contract over the cpu backend (simulator_contract.hpp).
#include "tests/safir/simulator_contract.hpp"

namespace tomo::safir::test {

TOMO_CONTRACT_INSTANTIATE(SafirSimulatorContract, EventGenerator);

}  // namespace tomo::safir::test
