// The native library functions' programs read a bounded number of tables a bin, whatever the
// number of stopping profiles: a GPU kernel's compile time (NVRTC) grows with every table read it
// holds (the LEM examples took 100 s to compile on an H200's host when each profile had its own
// reads, 1–10 s now). Counted on musrfit's own example files, as the conformance suite runs them.
#include <gtest/gtest.h>

#include <filesystem>

#include "compute/musr/codegen_cuda.hpp"
#include "tests/musr/conformance.hpp"

namespace tomo::musr {
namespace {

int table_reads(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(TOMO_SOURCE_DIR) / "tests/musr/musrfit";
  const MsrFile msr = read_msr(dir / name);
  const FitSetup setup = prepare_fit(msr, [&](const MsrRun& r) { return load_run_data(msr, r); });
  return cuda_chi2_source(setup.data, false).tables;
}

TEST(MusrNativeTableReads, AKnownEnergySelectsItsProfileWhileBuilding) {
  // TLondon1DHS with the energy a fixed parameter (22 keV of 10 profiles): the argument check and
  // the cosine and sine tables of that one profile.
  EXPECT_EQ(table_reads("BMWlibs/test-libFitPofB_Meissner-ROOT-NPP.msr"), 3);
}

TEST(MusrNativeTableReads, MeanFieldsReadTwoProfilesPerEnergy) {
  // TMeanFieldsForScSingleLayer with the energy as x: the three layer fractions and the film
  // field at the two profiles around x, for 10 profiles.
  EXPECT_EQ(table_reads("BMWlibs/test-libCalcMeanFieldsLEM-DB.msr"), 8);
}

}  // namespace
}  // namespace tomo::musr
