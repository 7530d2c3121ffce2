// Windows visited again, over the cpu and GL backends (GL on llvmpipe in CI, never skipped).
#include "tests/safir/window_revisit.hpp"

namespace tomo::safir::test {

TOMO_CONTRACT_INSTANTIATE(SafirWindowRevisit, ListModeOperator);

}  // namespace tomo::safir::test
