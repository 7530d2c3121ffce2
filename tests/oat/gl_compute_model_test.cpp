// The gl-compute backends of oat on this machine's GL (llvmpipe in CI: never skipped): H_int and
// its transpose (gathered over tiles of voxels) vs cpu in both interpolation modes, with and
// without an EIR, at the paper scene's scale, and `portable`; the FBP vs cpu.
#include <gtest/gtest.h>

#include "compute/core/error.hpp"
#include "tests/oat/gather_model_checks.hpp"
#include "tests/oat/gpu_checks.hpp"
#include "tests/support/gl_test.hpp"

namespace tomo::oat::test {

class OatGlCompute : public ::testing::Test {
 protected:
  void SetUp() override { (void)tomo::test::gl_context(); }
};

TEST_F(OatGlCompute, ExactModelEqualsCpuAndIsMatched) { check_model("gl-compute", Interpolation::exact, EirKind::none); }

TEST_F(OatGlCompute, ExactModelWithEirEqualsCpu) { check_model("gl-compute", Interpolation::exact, EirKind::gaussian); }

// The gathered transpose at the paper scene's scale, in passes of a few transducers on llvmpipe.
TEST_F(OatGlCompute, GatherAtPaperScaleEqualsCpuAndIsMatched) { check_gather_at_paper_scale("gl-compute", 3, 6); }

TEST_F(OatGlCompute, PortableEqualsCpu) {
  check_model("gl-compute", Interpolation::exact, EirKind::none, /*portable=*/true);
}

TEST_F(OatGlCompute, HardwareModelWithinItsTolerance) {
  check_model("gl-compute", Interpolation::hardware, EirKind::none);
}

// Its transpose's shared-memory sums are float compare-and-swap adds in varying order: asking for
// the same bits every run is refused, naming the key.
TEST_F(OatGlCompute, ReproducibleIsRefused) {
  auto op = BackendRegistry<Model>::instance().create("gl-compute");
  ModelOptions o;
  o.reproducible = true;
  try {
    op->configure(small_geometry(), o);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("oat.model.reproducible"), std::string::npos) << e.what();
  }
}

TEST_F(OatGlCompute, ExactFbpEqualsCpu) { check_fbp("gl-compute", Interpolation::exact, kFbpExactTolerance); }

// FbpOptions::interpolation = hardware reads exactly too (the texture unit's filter would lerp
// the held difference): the same image.
TEST_F(OatGlCompute, HardwareFbpOptionReadsExactly) {
  check_fbp("gl-compute", Interpolation::hardware, kFbpExactTolerance);
}

}  // namespace tomo::oat::test
