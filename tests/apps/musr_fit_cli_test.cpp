// `tomoraster run musr_default.toml` and `tomoraster fit FILE.msr` end to end: simulated eq. (5)
// data written as msr + PSI-BIN, fitted again from the files; the fitted msr goes to the output
// folder (never over the input) with the STATISTIC block, plots and report.json beside it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/apps/musr_fit_cli.hpp"

namespace fs = std::filesystem;

namespace {

using tomo::test::read_text;

TEST(MusrFitCli, RunThenFitTheWrittenMsr) {
  tomo::test::TempDir t;
  ASSERT_NO_FATAL_FAILURE(tomo::test::simulate_musr(t.dir));
  const std::string input = read_text(t.dir / "sim" / "musr_eq5.msr");

  const auto fit = tomo::test::run_cli("fit sim/musr_eq5.msr --backend cpu -o fit", t.dir);
  ASSERT_EQ(fit.status, 0) << fit.output;
  EXPECT_NE(fit.output.find("chisq = "), std::string::npos) << fit.output;
  EXPECT_EQ(read_text(t.dir / "sim" / "musr_eq5.msr"), input) << "the input msr was modified";
  const std::string fitted = read_text(t.dir / "fit" / "musr_eq5_fit.msr");
  EXPECT_NE(fitted.find("STATISTIC --- "), std::string::npos);
  EXPECT_NE(fitted.find("chisq/NDF = "), std::string::npos);
  EXPECT_TRUE(fs::exists(t.dir / "fit" / "run1.png"));
  EXPECT_TRUE(fs::exists(t.dir / "fit" / "run2.png"));
  const auto report = nlohmann::json::parse(read_text(t.dir / "fit" / "report.json"));
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

// `fit --help` says which data formats are read and what each exit status means (the statuses
// themselves: musr_fit_refusals_test.cpp).
TEST(MusrFitCli, HelpListsTheDataFormatsAndExitStatuses) {
  const auto help = tomo::test::run_cli("fit --help");
  ASSERT_EQ(help.status, 0) << help.output;
  for (const char* format : {"PSI-BIN", "PSI-MDU", "MUD", "MUSR-ROOT", "ROOT-NPP", "ROOT-PPC", "NEXUS (HDF4 and HDF5)", "ASCII", "DB",
                             "DAT x-y data for fittype 8"})
    EXPECT_NE(help.output.find(format), std::string::npos) << format << " missing in:\n" << help.output;
  EXPECT_NE(help.output.find("Exit status: 0 the fit converged; 4 the fit did not converge"), std::string::npos) << help.output;
  EXPECT_NE(help.output.find("2 bad input"), std::string::npos) << help.output;
  EXPECT_EQ(help.output.find("PSI-BIN data beside it"), std::string::npos) << help.output;
}

}  // namespace
