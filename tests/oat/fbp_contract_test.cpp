// The oat::Fbp contract over the registry's cpu and GL backends (CI: llvmpipe, never skipped;
// an unavailable GL backend fails).
#include "tests/oat/fbp_contract.hpp"

namespace tomo::oat::test {

TOMO_CONTRACT_INSTANTIATE(OatFbpContract, Fbp);

}  // namespace tomo::oat::test
