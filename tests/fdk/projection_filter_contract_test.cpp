// The fdk::ProjectionFilter contract over the registry's non-cuda backends (today: cpu).
#include "tests/fdk/projection_filter_contract.hpp"

namespace tomo::fdk::test {

TOMO_CONTRACT_INSTANTIATE(FdkProjectionFilterContract, ProjectionFilter);

}  // namespace tomo::fdk::test
