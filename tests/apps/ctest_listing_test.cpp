// What ctest lists: every registered case is one that a CI run executes, none that only
// skips (the MpiChild.* cases run only under their parent test's mpirun).
#include <gtest/gtest.h>

#include <string>

#include "tests/support/run_command.hpp"

TEST(CtestListing, CasesThatRunOnlyUnderMpirunAreNotTestsOfTheirOwn) {
  const auto r = tomo::test::run_command(std::string(TOMO_CTEST) + " --test-dir '" + TOMO_BUILD_DIR + "' -N -R MpiChild 2>&1");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("Total Tests: 0"), std::string::npos) << r.output;
}
