// The musr::Chi2Evaluator contract over the cuda backend (label gpu; skips without a CUDA
// device): double within 1e-9 of cpu, float within 1e-5.
#include "tests/musr/chi2_contract.hpp"

namespace tomo::musr::test {

TOMO_CONTRACT_INSTANTIATE_GPU(MusrChi2Contract);

}  // namespace tomo::musr::test
