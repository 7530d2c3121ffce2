// The fdk::ConeBeamBackprojector contract over the registry's cpu and GL backends (CI: llvmpipe,
// never skipped; an unavailable GL backend fails).
#include "tests/fdk/backprojector_contract.hpp"

namespace tomo::fdk::test {

TOMO_CONTRACT_INSTANTIATE(FdkBackprojectorContract, ConeBeamBackprojector);

}  // namespace tomo::fdk::test
