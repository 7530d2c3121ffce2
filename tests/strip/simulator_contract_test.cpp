// The strip::PhantomGenerator contract over the cpu backend (simulator_contract.hpp).
#include "tests/strip/simulator_contract.hpp"

namespace tomo::strip::test {

TOMO_CONTRACT_INSTANTIATE(StripSimulatorContract, PhantomGenerator);

}  // namespace tomo::strip::test
