// Replays, in every build, the inputs the fuzzers start from (which must be accepted) and
// every input a fuzzer once failed on (tests/fuzz/regressions/<target>/; each must now end
// in InputError or be accepted — never a crash or another exception).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>

#include "tests/fuzz/entries.hpp"
#include "tests/fuzz/seeds.hpp"

namespace tomo::fuzz {
namespace {

const std::map<std::string, std::function<bool(const std::uint8_t*, std::size_t)>> kTargets = {
    {"scene", scene}, {"rabbitct", rabbitct}, {"listmode", listmode}, {"nifti", nifti}, {"interfile", interfile}, {"npy", npy},
    {"glpet_counts", glpet_counts}, {"glpet_listmode", glpet_listmode},
    {"safir_clm", safir_clm}, {"safir_castor", safir_castor}, {"safir_crystal_map", safir_crystal_map},
    {"matrix_file", matrix_file}, {"projection_stack", projection_stack}, {"fdk_reference", fdk_reference},
    {"oat_npy", oat_npy}, {"oat_patato", oat_patato}, {"oat_kwave", oat_kwave},
    {"oat_patato_recipe", oat_patato_recipe}, {"oat_kwave_recipe", oat_kwave_recipe},
    {"msr", msr}, {"psibin", psibin}, {"user_fcn", user_fcn}, {"tiff", tiff},
    {"musr_mud", musr_mud}, {"musr_mdu", musr_mdu}, {"musr_root", musr_root},
    {"musr_ascii", musr_ascii}, {"musr_db", musr_db}, {"musr_dat", musr_dat}, {"musr_rge", musr_rge}
#ifdef TOMO_HAVE_HDF5
    , {"musr_nexus", musr_nexus}
#endif
};

TEST(FuzzRegression, SeedsAreValidInputs) {
  const auto all = seeds();
  for (const auto& [target, inputs] : all) {
    ASSERT_TRUE(kTargets.count(target)) << target;
    for (std::size_t i = 0; i < inputs.size(); ++i)
      EXPECT_TRUE(kTargets.at(target)(inputs[i].data(), inputs[i].size())) << target << " seed " << i;
  }
  EXPECT_EQ(all.size(), kTargets.size()) << "a fuzz target has no seeds";
}

TEST(FuzzRegression, FormerFindingsEndInAClearRefusal) {
  const std::filesystem::path root = std::filesystem::path(TOMO_SOURCE_DIR) / "tests" / "fuzz" / "regressions";
  int replayed = 0;
  for (const auto& [target, entry] : kTargets) {
    if (!std::filesystem::is_directory(root / target)) continue;
    for (const auto& f : std::filesystem::directory_iterator(root / target)) {
      std::ifstream in(f.path(), std::ios::binary);
      const Bytes b{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      EXPECT_NO_THROW(entry(b.data(), b.size())) << f.path();
      ++replayed;
    }
  }
  RecordProperty("replayed", replayed);
}

}  // namespace
}  // namespace tomo::fuzz
