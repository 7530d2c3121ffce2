// The fdk::ConeBeamProjector contract over the cuda backend (label gpu; skipped without a CUDA
// device).
#include "tests/fdk/projector_contract.hpp"

namespace tomo::fdk::test {

TOMO_CONTRACT_INSTANTIATE_GPU(FdkProjectorContract);

}  // namespace tomo::fdk::test
