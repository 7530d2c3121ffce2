// `tomoraster fit` refusals: one line and exit 2 for an msr path that is not a regular file.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "tests/apps/musr_fit_cli.hpp"

namespace fs = std::filesystem;

namespace {

TEST(MusrFitRefusals, FolderAndFifoMsrSayWhatTheyAre) {
  tomo::test::TempDir t;
  fs::create_directory(t.dir / "d.msr");
  const auto dir = tomo::test::run_cli("-q fit d.msr -o out", t.dir);
  EXPECT_EQ(dir.status, 2) << dir.output;
  EXPECT_NE(dir.output.find("is a folder"), std::string::npos) << dir.output;
  ASSERT_EQ(mkfifo((t.dir / "f.msr").c_str(), 0600), 0);
  const auto fifo = tomo::test::run_cli("-q fit f.msr -o out", t.dir);
  EXPECT_EQ(fifo.status, 2) << fifo.output;
  EXPECT_NE(fifo.output.find("not a regular file"), std::string::npos) << fifo.output;
  EXPECT_FALSE(fs::exists(t.dir / "out"));
}

using tomo::test::read_text;
using tomo::test::simulate_musr;

TEST(MusrFitRefusals, OptionsFitCannotHonourAndNegativeSeed) {
  tomo::test::TempDir t;
  ASSERT_NO_FATAL_FAILURE(simulate_musr(t.dir));
  const auto fit = tomo::test::run_cli("fit sim/musr_eq5.msr --backend cpu -o fit", t.dir);
  ASSERT_EQ(fit.status, 0) << fit.output;
  EXPECT_EQ(fit.output.find("was not used"), std::string::npos) << fit.output;
  const auto gpus = tomo::test::run_cli("--gpus 2 fit sim/musr_eq5.msr -o g", t.dir);
  EXPECT_EQ(gpus.status, 2) << gpus.output;
  EXPECT_NE(gpus.output.find("--gpus: fit runs on one device"), std::string::npos) << gpus.output;
  EXPECT_EQ(tomo::test::count_lines(gpus.output), 1) << gpus.output;
  const auto seed = tomo::test::run_cli("-q run musr_default.toml --set musr.seed=-1 -o s", t.dir);
  EXPECT_EQ(seed.status, 2) << seed.output;
  EXPECT_NE(seed.output.find("musr.seed"), std::string::npos) << seed.output;
  EXPECT_NE(seed.output.find("must be >= 0, got -1"), std::string::npos) << seed.output;
}

TEST(MusrFitRefusals, ForceNeverOverwritesTheInputMsr) {
  tomo::test::TempDir t;
  ASSERT_NO_FATAL_FAILURE(simulate_musr(t.dir));
  fs::create_directory(t.dir / "in");
  fs::copy_file(t.dir / "sim" / "musr_eq5.bin", t.dir / "in" / "musr_eq5.bin");
  fs::copy_file(t.dir / "sim" / "musr_eq5.msr", t.dir / "in" / "report.json");
  const std::string input = read_text(t.dir / "in" / "report.json");
  const auto fit = tomo::test::run_cli("-q fit report.json --backend cpu -o ../in --force", t.dir / "in");
  EXPECT_EQ(fit.status, 2) << fit.output;
  EXPECT_NE(fit.output.find("has the name of an output of the fit"), std::string::npos) << fit.output;
  EXPECT_EQ(read_text(t.dir / "in" / "report.json"), input);
  fs::copy_file(t.dir / "sim" / "musr_eq5.msr", t.dir / "in" / "run1.png");
  EXPECT_EQ(tomo::test::run_cli("-q fit run1.png --backend cpu -o ../in --force", t.dir / "in").status, 2);
  // Another output folder is fine.
  EXPECT_EQ(tomo::test::run_cli("-q fit in/report.json --backend cpu -o out", t.dir).status, 0);
}

TEST(MusrFitRefusals, NonFiniteChi2ExitsFourAndKeepsInputSteps) {
  tomo::test::TempDir t;
  ASSERT_NO_FATAL_FAILURE(simulate_musr(t.dir));
  std::string text = read_text(t.dir / "sim" / "musr_eq5.msr");
  const std::string fun = "fun1 = gamma_mu * par2";
  ASSERT_NE(text.find(fun), std::string::npos);
  text.replace(text.find(fun), fun.size(), fun + " / 0");
  { std::ofstream(t.dir / "sim" / "nan.msr") << text; }
  fs::copy_file(t.dir / "sim" / "musr_eq5.bin", t.dir / "sim" / "nan.bin");
  const auto fit = tomo::test::run_cli("fit sim/nan.msr --backend cpu -o fit", t.dir);
  EXPECT_EQ(fit.status, 4) << fit.output;
  EXPECT_NE(fit.output.find("the fit failed"), std::string::npos) << fit.output;
  const std::string fitted = read_text(t.dir / "fit" / "nan_fit.msr");
  // Field's input step 0.1 is kept (a 0 would fix it in the next fit).
  const auto field = fitted.find(" Field ");
  ASSERT_NE(field, std::string::npos) << fitted;
  const std::string line = fitted.substr(field, fitted.find('\n', field) - field);
  EXPECT_NE(line.find("0.1"), std::string::npos) << line;
  EXPECT_EQ(line.find("nan"), std::string::npos) << line;
}

}  // namespace
