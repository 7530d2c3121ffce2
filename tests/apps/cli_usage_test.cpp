// The command line as a new user meets it: usage errors exit 2 with one line, a scene path is
// never swapped for an embedded scene, a folder is not a scene, and --set refuses malformed
// indices and whole sections.
#include <gtest/gtest.h>

#include <fstream>

#include "tests/apps/cli_run.hpp"

namespace {

using tomo::test::count_lines;
using tomo::test::run_cli;
using tomo::test::TempDir;

TEST(CliUsage, UnknownCommandIsBadInputNamingTheCommands) {
  auto r = run_cli("runn scenes/default.toml");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("unknown command 'runn'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("run"), std::string::npos) << r.output;
  EXPECT_EQ(count_lines(r.output), 1) << r.output;
}

TEST(CliUsage, UnknownOptionAndMissingValueAreBadInput) {
  for (const char* args : {"run --bogus", "run -o", "--cuda-device", "info extra words", ""}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.output;
    EXPECT_EQ(count_lines(r.output), 1) << args << ": " << r.output;
    EXPECT_NE(r.output.find("tomoraster: error:"), std::string::npos) << args << ": " << r.output;
  }
}

TEST(CliUsage, HelpStillExitsZero) {
  for (const char* args : {"--help", "run --help"}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.status, 0) << args << ": " << r.output;
    EXPECT_NE(r.output.find("Usage"), std::string::npos) << r.output;
  }
}

TEST(CliUsage, AScenePathInAMissingFolderIsNotReplacedByTheEmbeddedScene) {
  auto r = run_cli("run no-such-folder/default.toml -o /nonexistent-out");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("no-such-folder/default.toml: scene file not found"), std::string::npos) << r.output;
}

TEST(CliUsage, AFolderIsNotASceneFile) {
  TempDir t;
  auto r = run_cli("run " + t.dir.string() + " -o " + (t.dir / "out").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("is a directory, not a scene file"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(t.dir / "out"));
}

TEST(CliUsage, SetRefusesMalformedIndicesAndWholeSections) {
  TempDir t;
  const std::string out = " -o " + (t.dir / "out").string();
  for (const char* set : {"'strip.phantom[x].rho=0.5'", "'strip.phantom[1234567890123456789012345].rho=1'",
                          "'strip.phantom[-1].rho=1'"}) {
    auto r = run_cli("run strip_default.toml --set " + std::string(set) + out);
    EXPECT_EQ(r.status, 2) << set << ": " << r.output;
    EXPECT_NE(r.output.find("is not a whole number"), std::string::npos) << set << ": " << r.output;
  }
  auto r = run_cli("run strip_default.toml --set strip.iterations=1 --set strip=5" + out);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("'strip' is a section of the scene"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(t.dir / "out"));
}

// crosscheck refuses unknown keys, as run does, and --force replaces a report.
TEST(CliUsage, CrosscheckRefusesUnknownKeysAndReplacesAReportOnlyWithForce) {
  TempDir t;
  const std::string report = (t.dir / "report.json").string();
  std::ofstream(report) << "old";
  const std::string small = "crosscheck strip_default.toml --set strip.crosscheck_events=500 ";
  auto r = run_cli(small + "--set strip.tpyo=1 --report " + report + " --force");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("unknown key 'strip.tpyo'"), std::string::npos) << r.output;
  r = run_cli(small + "--report " + report);
  EXPECT_EQ(r.status, 2) << r.output;  // the report exists: only --force replaces it
  r = run_cli(small + "--report " + report + " --force");
  EXPECT_EQ(r.status, 0) << r.output;
  std::ifstream in(report);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first.rfind("{", 0), 0u) << "the report was not replaced: " << first;
}

// Logs: --version, and -q silences progress bars as well as info lines.
TEST(CliUsage, VersionAndQuietProgress) {
  auto v = run_cli("--version");
  EXPECT_EQ(v.status, 0) << v.output;
  EXPECT_EQ(v.output.rfind("tomoraster ", 0), 0u) << v.output;
  TempDir t;
  // run_cli passes --no-progress; call the binary directly to see the bars -q must hide.
  const std::string run = std::string(TOMO_BINARY) + " -q run strip_default.toml --set strip.events=2000 "
                          "--set strip.iterations=2 --set strip.save_iterations=[] -o " + (t.dir / "q").string() + " 2>&1";
  FILE* p = popen(run.c_str(), "r");
  std::string out;
  for (char buf[512]; std::fgets(buf, sizeof buf, p);) out += buf;
  EXPECT_EQ(pclose(p), 0) << out;
  EXPECT_EQ(out.find("ML-EM"), std::string::npos) << out;
  EXPECT_EQ(out.find("[info]"), std::string::npos) << out;
}

// Every command that takes a scene shows examples and the embedded scenes in --help.
TEST(CliUsage, HelpOfSceneCommandsShowsExamplesAndEmbeddedScenes) {
  for (const char* cmd : {"run --help", "crosscheck --help", "view --help"}) {
    auto r = run_cli(cmd);
    EXPECT_EQ(r.status, 0) << cmd << ": " << r.output;
    EXPECT_NE(r.output.find("Examples:\n  tomoraster "), std::string::npos) << cmd << ": " << r.output;
    EXPECT_NE(r.output.find("Embedded scenes (usable by name anywhere):"), std::string::npos) << cmd;
    for (const char* scene : {"default.toml", "glpet_small.toml", "strip_default.toml", "fdk_default.toml"})
      EXPECT_NE(r.output.find(scene), std::string::npos) << cmd << " does not list " << scene;
  }
}

}  // namespace
