// Tests of the progress bar off a terminal: one line per decile plus the final line,
// nothing when runtime_options().progress is off.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "compute/core/progress.hpp"
#include "compute/core/runtime_options.hpp"

using namespace tomo;

TEST(Progress, PrintsOneLinePerDecileWhenNotATerminal) {
  runtime_options().progress = true;
  testing::internal::CaptureStderr();  // stderr becomes a file: the non-terminal mode
  {
    Progress p("mlem", 20);
    for (int i = 0; i < 20; ++i) p.step(1, "it " + std::to_string(i + 1));
    p.finish();
    p.finish();  // once only
  }  // the destructor adds nothing after finish()
  const std::string out = testing::internal::GetCapturedStderr();
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 10) << out;  // 10 %..90 % and the final line
  EXPECT_NE(out.find("mlem [##..................] 2/20"), std::string::npos) << out;
  EXPECT_NE(out.find("mlem [####################] 20/20"), std::string::npos) << out;
  EXPECT_NE(out.find("it 20"), std::string::npos) << out;
  EXPECT_EQ(out.find('\r'), std::string::npos) << out;
}

TEST(Progress, DestructorFinishesAndDisabledIsSilent) {
  runtime_options().progress = true;
  testing::internal::CaptureStderr();
  { Progress p("partial", 4); p.step(); }
  std::string out = testing::internal::GetCapturedStderr();
  EXPECT_NE(out.find("partial [#####...............] 1/4"), std::string::npos) << out;

  runtime_options().progress = false;
  testing::internal::CaptureStderr();
  {
    Progress p("quiet", 10);
    for (int i = 0; i < 10; ++i) p.step();
  }
  out = testing::internal::GetCapturedStderr();
  runtime_options().progress = true;
  EXPECT_TRUE(out.empty()) << out;
}
