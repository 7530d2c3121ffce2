// The fdk::ConeBeamProjector contract over the cuda backend (label gpu). No cuda projector is
// registered yet: the registry reports it unavailable and the fixture skips, until one is.
#include "tests/fdk/projector_contract.hpp"

namespace tomo::fdk::test {

TOMO_CONTRACT_INSTANTIATE_GPU(FdkProjectorContract);

}  // namespace tomo::fdk::test
