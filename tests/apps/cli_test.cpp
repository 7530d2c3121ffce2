// The tomoraster binary as a user runs it: default scene outputs, exit statuses and
// one-line messages for bad input, output directories never touched without --force.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/apps/cli_run.hpp"

namespace fs = std::filesystem;

namespace {

using Result = tomo::test::CliResult;
using tomo::test::TempDir;
Result run(const std::string& args) { return tomo::test::run_cli(args); }
int lines(const std::string& s) { return tomo::test::count_lines(s); }

}  // namespace

TEST(Cli, InfoPrintsGlVersionRendererAndProblems) {
  Result r = run("info");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(r.output.find("4.5") != std::string::npos || r.output.find("4.6") != std::string::npos) << r.output;
  EXPECT_NE(r.output.find("renderer:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("CUDA"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("demo"), std::string::npos) << r.output;
}

TEST(Cli, DefaultSceneWritesNiftiPngAndReport) {
  TempDir t;
  fs::path out = t.dir / "run";
  // The embedded default scene (glpet), shrunk so the test stays quick.
  Result r = run("run -o " + out.string() +
                 " --set glpet.voxels=[8,8,8] --set glpet.mc.histories=200000 --set glpet.iterations=2");
  ASSERT_EQ(r.status, 0) << r.output;
  bool nii = false, png = false;
  for (auto& e : fs::directory_iterator(out)) {
    nii |= e.path().extension() == ".nii";
    png |= e.path().extension() == ".png";
  }
  EXPECT_TRUE(nii && png);
  std::ifstream in(out / "report.json");
  nlohmann::json report = nlohmann::json::parse(in);
  EXPECT_FALSE(report["problem"].get<std::string>().empty());
  EXPECT_FALSE(report["backend"].get<std::string>().empty());
  EXPECT_TRUE(report["timings_ms"].contains("total"));
  EXPECT_EQ(report["problem"], "glpet");
  EXPECT_EQ(report["scene"]["glpet"]["voxels"][0], 8);
  // How and where it ran; counts as integers.
  EXPECT_EQ(report["command_line"][1], "--no-progress");
  EXPECT_EQ(report["command_line"][2], "run");
  EXPECT_FALSE(report["host"].get<std::string>().empty());
  EXPECT_TRUE(report["commit"].is_string());
  EXPECT_TRUE(report["metrics"]["mc_histories"].is_number_integer()) << report["metrics"];
  // No staging directory is left behind.
  for (auto& e : fs::directory_iterator(t.dir)) EXPECT_EQ(e.path().filename(), "run");
}

// Without a GPU, "auto" (here the default: the scene names no backend) lands on the cpu and says
// so in one line with the time to expect. glpet_default.toml (about 23 h on 2 cores) shrunk to 8³
// voxels and no iteration: the sensitivity's 512 voxels × 16·32·32 lines × (14 + K = 32) samples
// = 3.9e8 line samples at 2e8 per core-second on 1 core: 1.9 s.
TEST(Cli, AutoWithoutAGpuSaysTheCpuAndTheTimeToExpect) {
  TempDir t;
  Result r = tomo::test::run_cli("run glpet_default.toml -o " + (t.dir / "run").string() +
                                     " --set glpet.voxels=[8,8,8] --set glpet.mc.histories=100000 --set glpet.iterations=0",
                                 {}, "OMP_NUM_THREADS=1");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string head = "[info] backend auto chose the cpu: no GPU backend can run here (";
  const std::string tail = "); expect about 2 s on this machine's 1 core\n";
  const auto at = r.output.find(head);
  ASSERT_NE(at, std::string::npos) << r.output;
  const auto end = r.output.find('\n', at);
  EXPECT_EQ(r.output.substr(end + 1 - tail.size(), tail.size()), tail) << r.output;
  EXPECT_EQ(r.output.find("backend auto", end), std::string::npos) << r.output;  // one line
}

// oat's estimate is its PLS on H_int: 2·(iterations + 1)·1.25·voxels·transducers patches at 2e7
// per core-second; 24³ voxels, 16×32 transducers, 1 iteration: 3.5e7 patches, about 2 s.
TEST(Cli, AutoWithoutAGpuEstimatesOatsModelBasedReconstruction) {
  TempDir t;
  Result r = tomo::test::run_cli("run oat_default.toml -o " + (t.dir / "run").string() +
                                     " --set oat.grid=[24,24,24] --set 'oat.algorithms=[\"pls\"]' --set oat.pls.iterations=1"
                                     " --set oat.write_data=false --set oat.fs_mhz=4",
                                 {}, "OMP_NUM_THREADS=1");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto at = r.output.find("[info] backend auto chose the cpu");
  ASSERT_NE(at, std::string::npos) << r.output;
  const std::string line = r.output.substr(at, r.output.find('\n', at) - at);
  EXPECT_NE(line.find("; expect about 2 s on this machine's 1 core"), std::string::npos) << line;
}

// fdk's estimate: FDK back-projects L³·views voxel updates at 8e7 per core-second and simulates
// each detector ray at the cost of 14 of them: 64³·124 + 14·124·312·240 = 1.6e8, about 2 s. An
// iterative run traces every ray through L samples per iteration (plus half an iteration of
// set-up) at 3e7 per core-second: SIRT, 1 iteration, 32³ from 62 views of 156×120: about 2 s.
TEST(Cli, AutoWithoutAGpuEstimatesFdkAndItsIterativeAlgorithms) {
  TempDir t;
  const std::string fdk = "run fdk_default.toml -o " + (t.dir / "fdk").string() + " --set fdk.L=64";
  const std::string sirt = "run fdk_default.toml -o " + (t.dir / "sirt").string() +
                           " --set fdk.L=32 --set fdk.algorithm=\"sirt\" --set fdk.iterations=1"
                           " --set fdk.geometry.projections=62 --set fdk.geometry.detector_columns=156"
                           " --set fdk.geometry.detector_rows=120 --set fdk.geometry.pixel_mm=2.56";
  for (const std::string& cmd : {fdk, sirt}) {
    Result r = tomo::test::run_cli(cmd, {}, "OMP_NUM_THREADS=1");
    ASSERT_EQ(r.status, 0) << r.output;
    const auto at = r.output.find("[info] backend auto chose the cpu");
    ASSERT_NE(at, std::string::npos) << r.output;
    const std::string line = r.output.substr(at, r.output.find('\n', at) - at);
    EXPECT_NE(line.find("; expect about 2 s on this machine's 1 core"), std::string::npos) << cmd << "\n" << line;
  }
}

// safir's estimate in LOR traces at 1e6 per core-second: the sensitivity an eighth of the crystal
// pairs (8 rings × 128 crystals: 65 472), each event-iteration ten: 300 000 events, 1 iteration,
// 3.07e6 traces, about 3 s.
TEST(Cli, AutoWithoutAGpuEstimatesSafirsSensitivityAndIterations) {
  TempDir t;
  Result r = tomo::test::run_cli("run safir_default.toml -o " + (t.dir / "run").string() +
                                     " --set safir.rings=8 --set safir.crystals=128 --set safir.image=[60,60,10]"
                                     " --set safir.events=300000 --set safir.iterations=1",
                                 {}, "OMP_NUM_THREADS=1");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto at = r.output.find("[info] backend auto chose the cpu");
  ASSERT_NE(at, std::string::npos) << r.output;
  const std::string line = r.output.substr(at, r.output.find('\n', at) - at);
  EXPECT_NE(line.find("; expect about 3 s on this machine's 1 core"), std::string::npos) << line;
}

// report.json names the commit of the source the binary was built from, refreshed at every build
// (not at configure time): `git rev-parse --short HEAD`, "-dirty" when a tracked file differs from
// it, "unknown" when the source is not a git checkout.
TEST(Cli, ReportNamesTheCommitTheBinaryWasBuiltFrom) {
  const std::string git = "git -C '" + std::string(TOMO_SOURCE_DIR) + "' ";
  std::string expected = "unknown";
  const auto top = tomo::test::run_command(git + "rev-parse --show-toplevel 2>/dev/null");
  if (top.status == 0 && fs::equivalent(fs::path(top.output.substr(0, top.output.find('\n'))), TOMO_SOURCE_DIR)) {
    const auto head = tomo::test::run_command(git + "rev-parse --short HEAD");
    ASSERT_EQ(head.status, 0) << head.output;
    expected = head.output.substr(0, head.output.find('\n'));
    const auto changed = tomo::test::run_command(git + "status --porcelain --untracked-files=no");
    ASSERT_EQ(changed.status, 0) << changed.output;
    if (!changed.output.empty()) expected += "-dirty";
  }
  TempDir t;
  const fs::path out = t.dir / "run";
  Result r = run("run demo.toml -o " + out.string() + " --set demo.size=[8,8,8]");
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream in(out / "report.json");
  EXPECT_EQ(nlohmann::json::parse(in).at("commit"), expected);
}

TEST(Cli, MissingSceneFailsWithOneLine) {
  Result r = run("run /no/such/missing.toml -o /tmp/never-written");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(lines(r.output), 1) << r.output;
  EXPECT_NE(r.output.find("missing.toml"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists("/tmp/never-written"));
}

TEST(Cli, WrongTypeNamesFileAndKey) {
  TempDir t;
  fs::path scene = t.dir / "bad.toml";
  std::ofstream(scene) << "problem = \"demo\"\n[demo]\nsupersampling = \"many\"\n";
  Result r = run("run " + scene.string() + " -o " + (t.dir / "o").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(lines(r.output), 1) << r.output;
  EXPECT_NE(r.output.find("bad.toml"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("demo.supersampling"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(t.dir / "o"));
}

TEST(Cli, ExistingOutputDirIsNotTouchedWithoutForce) {
  TempDir t;
  fs::path out = t.dir / "existing";
  fs::create_directories(out);
  std::ofstream(out / "mine.txt") << "keep";
  Result r = run("run demo.toml -o " + out.string() + " --set demo.size=[8,8,8]");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--force"), std::string::npos) << r.output;
  EXPECT_EQ(std::distance(fs::directory_iterator(out), fs::directory_iterator()), 1);
  r = run("run demo.toml -o " + out.string() + " --set demo.size=[8,8,8] --force");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(fs::exists(out / "mine.txt"));
  EXPECT_TRUE(fs::exists(out / "report.json"));
}

TEST(Cli, UnknownBackendAndNanAreRejected) {
  TempDir t;
  Result r = run("run demo.toml --backend warp-drive -o " + (t.dir / "a").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("warp-drive"), std::string::npos) << r.output;
  r = run("run demo.toml --set demo.voxel_mm=[nan,1.0,1.0] -o " + (t.dir / "b").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("demo.voxel_mm"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(t.dir / "a"));
  EXPECT_FALSE(fs::exists(t.dir / "b"));
}

TEST(Cli, CrosscheckPassesForTheDemo) {
  TempDir t;
  const fs::path json = t.dir / "crosscheck.json";
  Result r = run("crosscheck demo.toml --set demo.size=[16,16,16] --report " + json.string());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("gl-compute"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("demo crosscheck against cpu"), std::string::npos) << r.output;
  // The common schema of docs/crosscheck.md.
  std::ifstream in(json);
  const nlohmann::json report = nlohmann::json::parse(in);
  const auto& c = report.at("crosscheck");
  EXPECT_EQ(c.at("problem"), "demo");
  EXPECT_TRUE(c.at("ok").get<bool>());
  bool gl_compute_row = false;
  for (const auto& row : c.at("rows"))
    if (row.at("backend") == "gl-compute") {
      gl_compute_row = true;
      EXPECT_TRUE(row.at("errors").at("rel_l2").is_number()) << row.dump();
      EXPECT_DOUBLE_EQ(row.at("tolerance").at("rel_l2").get<double>(), 1e-5);
    }
  EXPECT_TRUE(gl_compute_row) << c.dump();
}
