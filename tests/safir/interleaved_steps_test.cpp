// gl-compute (llvmpipe in CI, never skipped): interleaved_steps.hpp on the tiled and fused passes.
#include "tests/safir/interleaved_steps.hpp"

namespace tomo::safir::test {
namespace {

TEST(SafirInterleavedSteps, GlComputeTiled) { check_interleaved_steps("gl-compute", Pass::tiled); }
TEST(SafirInterleavedSteps, GlComputeFused) { check_interleaved_steps("gl-compute", Pass::fused); }

}  // namespace
}  // namespace tomo::safir::test
