// safir windows visited again, over the cuda backend (label gpu; skips without a CUDA device).
#include "tests/safir/window_revisit.hpp"

namespace tomo::safir::test {

TOMO_CONTRACT_INSTANTIATE_GPU(SafirWindowRevisit);

}  // namespace tomo::safir::test
