// The demo::Voxelizer contract over the registry's cpu and GL backends (CI: llvmpipe, never
// skipped; an unavailable GL backend fails).
#include "tests/demo/voxelizer_contract.hpp"

namespace tomo::demo::test {

TOMO_CONTRACT_INSTANTIATE(DemoVoxelizerContract, Voxelizer);

}  // namespace tomo::demo::test
