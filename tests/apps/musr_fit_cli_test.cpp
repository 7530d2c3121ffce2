// `tomoraster run musr_default.toml` and `tomoraster fit FILE.msr` end to end: simulated eq. (5)
// data written as msr + PSI-BIN, fitted again from the files; the fitted msr goes to the output
// folder (never over the input) with the STATISTIC block, plots and report.json beside it.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/apps/cli_run.hpp"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(MusrFitCli, RunThenFitTheWrittenMsr) {
  tomo::test::TempDir t;
  const auto sim = tomo::test::run_cli(
      "-q run musr_default.toml --set musr.detectors=2 --set musr.bins=2000 --set musr.fit_end=5.0 -o sim", t.dir);
  ASSERT_EQ(sim.status, 0) << sim.output;
  ASSERT_TRUE(fs::exists(t.dir / "sim" / "musr_eq5.bin"));
  const std::string input = slurp(t.dir / "sim" / "musr_eq5.msr");

  const auto fit = tomo::test::run_cli("fit sim/musr_eq5.msr --backend cpu -o fit", t.dir);
  ASSERT_EQ(fit.status, 0) << fit.output;
  EXPECT_NE(fit.output.find("chisq = "), std::string::npos) << fit.output;
  EXPECT_EQ(slurp(t.dir / "sim" / "musr_eq5.msr"), input) << "the input msr was modified";
  const std::string fitted = slurp(t.dir / "fit" / "musr_eq5_fit.msr");
  EXPECT_NE(fitted.find("STATISTIC --- "), std::string::npos);
  EXPECT_NE(fitted.find("chisq/NDF = "), std::string::npos);
  EXPECT_TRUE(fs::exists(t.dir / "fit" / "run1.png"));
  EXPECT_TRUE(fs::exists(t.dir / "fit" / "run2.png"));
  const auto report = nlohmann::json::parse(slurp(t.dir / "fit" / "report.json"));
  EXPECT_EQ(report["backend"], "cpu");
  EXPECT_TRUE(report["fit"]["converged"].get<bool>());
  // The field (truth 100 G) within 4 errors.
  const auto& field = report["fit"]["parameters"][1];
  EXPECT_EQ(field["name"], "Field");
  EXPECT_LT(std::fabs(field["value"].get<double>() - 100.0), 4.0 * field["error"].get<double>());
  // The same fit into the same folder is refused.
  const auto again = tomo::test::run_cli("-q fit sim/musr_eq5.msr -o fit", t.dir);
  EXPECT_EQ(again.status, 2) << again.output;
}

}  // namespace
