// Comments and docs stand on their own (tests/house/wording.hpp): each rule catches its words
// in a made-up tree and leaves ordinary prose alone; then the real tree must have none. The
// bad words below are spelt in pieces so this file does not break the rule it tests.
#include <gtest/gtest.h>

#include <string>

#include "tests/house/wording.hpp"

namespace tomo::house {
namespace {

std::size_t flagged(const std::string& line) {
  Tree t;
  t["compute/toy/x.cpp"] = "// first line\n" + line + "\n";
  return check_wording(t).size();
}

TEST(Wording, ReferencesToTheProjectsOwnPaperworkAreFlagged) {
  const std::string issue = "iss" "ue";
  EXPECT_EQ(flagged("// the memory estimate (" + issue + " 11)"), 1u);
  EXPECT_EQ(flagged("// " + issue + " #3: fixed"), 1u);
  EXPECT_EQ(flagged("# Iss" "ue 12's probes"), 1u);
  EXPECT_EQ(flagged("// the unwritable target (" "D" "4) is found first"), 1u);
  EXPECT_EQ(flagged("see docs/musr.md, round " "four"), 1u);
  EXPECT_EQ(flagged("| v2 (round " "2's default) |"), 1u);
  EXPECT_EQ(flagged("the third " "round moved it"), 1u);
  EXPECT_EQ(flagged("// P(e|i) of seed " "000 eq. (7)"), 1u);
  EXPECT_EQ(flagged("# see ../" "shared/DESIGN.md"), 1u);
  EXPECT_EQ(flagged("cp x /" "work/sha" "red/tools/"), 1u);
  EXPECT_EQ(flagged("the seeds in shared/" "seeds/ say"), 1u);
  // One finding per line, with its place.
  Tree t;
  t["docs/toy.md"] = "ok\nsee ../" "shared/x and " + issue + " 5\n";
  const auto found = check_wording(t);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rfind("docs/toy.md:2: ", 0), 0u) << found[0];
}

TEST(Wording, OrdinaryProseIsLeftAlone) {
  for (const std::string line :
       {"// 2D and 3D images", "// issues are filed by users", "// round the value to 3 digits",
        "// round-off error of 1e-7", "// the seed of the random generator is 7", "// tests/fuzz/seeds.hpp: the seeds",
        "// shared memory of 48 KiB", "// [Bialas2015] eq. (7)", "std::round(x)", "the second rounding"})
    EXPECT_EQ(flagged(line), 0u) << line;
}

TEST(Wording, TheTreeNamesNoIssueRoundSeedFileOrOutsidePath) {
  const Tree t = read_tree(TOMO_SOURCE_DIR);
  ASSERT_GT(t.size(), 300u) << "source tree not found at " << TOMO_SOURCE_DIR;
  const auto found = check_wording(t);
  EXPECT_TRUE(found.empty()) << found.size() << " line(s) name what a reader of the repository cannot follow:\n"
                             << joined(found);
}

}  // namespace
}  // namespace tomo::house
