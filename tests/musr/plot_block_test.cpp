// PLOT blocks as the run plots read them: `range` (time, then asymmetry), `sub_ranges` (a time
// pair per listed run, then the asymmetry pair), `use_fit_ranges` (asymmetry pair only), the
// first block listing a run wins, and a bad number is refused naming the line.
#include <gtest/gtest.h>

#include "compute/core/error.hpp"
#include "compute/musr/plot_block.hpp"

namespace tomo::musr {
namespace {

std::string msr_with(const std::string& plots) {
  std::string runs;
  for (int i = 0; i < 4; ++i) runs += "RUN f X TEST PSI-BIN\nfittype 2\nforward 1\nbackward 2\nbackgr.fix 0 0\n";
  return "title\nFITPARAMETER\n 1 A 0.2 0.01\nTHEORY\nasymmetry 1\n" + runs + "COMMANDS\nMIGRAD\n" + plots;
}

TEST(MusrPlotBlock, RangesPerRun) {
  const MsrFile m = parse_msr(msr_with("PLOT 2 (asymmetry)\nruns 1\nrange 0 8 -0.3 0.3\nview_packing 38\n"
                                       "PLOT 2\nruns 2 3\nsub_ranges 0 7 0 3 -0.25 0.25\n"
                                       "PLOT 2\nruns 1 4\nuse_fit_ranges -0.1 0.1\n"),
                              "p.msr");
  const auto v = read_plot_views(m, 4);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0].t, (std::pair{0.0, 8.0}));  // the first block listing run 1
  EXPECT_EQ(v[0].y, (std::pair{-0.3, 0.3}));
  EXPECT_EQ(v[1].t, (std::pair{0.0, 7.0}));
  EXPECT_EQ(v[2].t, (std::pair{0.0, 3.0}));
  EXPECT_EQ(v[2].y, (std::pair{-0.25, 0.25}));
  EXPECT_FALSE(v[3].t);  // the fit range
  EXPECT_EQ(v[3].y, (std::pair{-0.1, 0.1}));
  // No PLOT block: every view empty.
  EXPECT_FALSE(read_plot_views(parse_msr(msr_with(""), "p.msr"), 4)[0].t);
  try {
    (void)read_plot_views(parse_msr(msr_with("PLOT 2\nruns 1\nrange 0 eight\n"), "p.msr"), 4);
    FAIL() << "a bad range was accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), ":30: PLOT range value 'eight' is not a number");
  }
}

}  // namespace
}  // namespace tomo::musr
