// The fdk::ConeBeamProjector contract over the registry's backends built here (cpu so far).
#include "tests/fdk/projector_contract.hpp"

namespace tomo::fdk::test {

TOMO_CONTRACT_INSTANTIATE(FdkProjectorContract, ConeBeamProjector);

}  // namespace tomo::fdk::test
