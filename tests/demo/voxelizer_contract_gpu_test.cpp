// The demo::Voxelizer contract over the cuda backend (label gpu; skips without a CUDA device).
#include "tests/demo/voxelizer_contract.hpp"

namespace tomo::demo::test {

TOMO_CONTRACT_INSTANTIATE_GPU(DemoVoxelizerContract);

}  // namespace tomo::demo::test
