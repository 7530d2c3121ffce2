// `mpirun -np 2 tomoraster run …`: the MPI path of the CLI (docs/multigpu.md, "Cluster").
// Two processes of one cpu rank each reconstruct what one process with two ranks does, bit for
// bit; only rank 0 writes; a process that fails ends the job with one message and a non-zero exit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/apps/cli_run.hpp"

namespace tomo {
namespace {

using test::CliResult;
using test::TempDir;

// `mpirun <launch>` where launch names the binary as {bin}; output is stdout + stderr.
CliResult mpirun(const std::string& launch, const std::filesystem::path& cwd) {
  std::string line = launch;
  for (std::size_t at; (at = line.find("{bin}")) != std::string::npos;)
    line.replace(at, 5, std::string(TOMO_BINARY) + " --no-progress");
  std::string cmd = "cd '" + cwd.string() + "' && ";
  cmd.append(test::kMpirunEnv).append(test::mpiexec()).append(" ").append(line).append(" 2>&1");
  return test::run_command(cmd);
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// The embedded ring made tiny: 12x12x6 voxels, 3 iterations (about a second per run here).
const std::string kSmall =
    " run default.toml --backend cpu --set glpet.voxels=[12,12,6] --set glpet.voxel_mm=[2.5,2.5,2.5]"
    " --set glpet.iterations=3 --set glpet.mc.histories=100000";

#define REQUIRE_MPI()                                                                         \
  if (test::mpiexec().empty())                                                                      \
  GTEST_SKIP() << "built without MPI (TOMO_WITH_MPI off or Open MPI's mpi.h/mpirun not found)"

TEST(MpiRun, TwoProcessesEqualOneProcessWithTwoRanksBitForBit) {
  REQUIRE_MPI();
  TempDir t;
  for (const std::string mode : {"exact", "seed"}) {
    const std::string set = " --set glpet.multi_gpu='\"" + mode + "\"'";
    const CliResult one = test::run_cli(kSmall + set + " --gpus 2 -o one-" + mode, t.dir);
    ASSERT_EQ(one.status, 0) << one.output;
    const CliResult two = mpirun("-np 2 {bin}" + kSmall + set + " --gpus 1 -o two-" + mode, t.dir);
    ASSERT_EQ(two.status, 0) << two.output;
    EXPECT_EQ(test::count_occurrences(two.output, "wrote "), 1) << two.output;  // rank 0 alone writes and reports
    for (const char* file : {"activity.nii", "sensitivity.nii"}) {
      const std::string a = slurp(t.dir / ("one-" + mode) / file), b = slurp(t.dir / ("two-" + mode) / file);
      EXPECT_GT(a.size(), 352u) << file;
      EXPECT_TRUE(a == b) << mode << ": " << file << " differs between 1 process x 2 ranks and 2 processes x 1";
    }
    const auto rep = nlohmann::json::parse(slurp(t.dir / ("two-" + mode) / "report.json"));
    EXPECT_EQ(rep["multi_gpu"]["processes"], 2);
    EXPECT_EQ(rep["multi_gpu"]["ranks"], 2);
    EXPECT_EQ(rep["multi_gpu"]["devices"].size(), 2u);
    const auto rep1 = nlohmann::json::parse(slurp(t.dir / ("one-" + mode) / "report.json"));
    EXPECT_EQ(rep["metrics"]["nrmse"], rep1["metrics"]["nrmse"]);
    if (mode == "seed") {
      EXPECT_EQ(rep["multi_gpu"]["alpha"], rep1["multi_gpu"]["alpha"]);
    }
  }
  // Nothing but the two outputs per mode: no staging or helper folders left behind.
  int entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(t.dir)) entries += e.is_directory();
  EXPECT_EQ(entries, 4);
}

// GL ranks in two processes: a context each (on llvmpipe here), host sums over MPI. Float
// atomics make GL's back-projection order-dependent, so equal within rounding, not bit for bit.
TEST(MpiRun, GlComputeRanksInTwoProcessesEqualOneProcess) {
  REQUIRE_MPI();
  TempDir t;
  std::string small = kSmall;
  small.replace(small.find("--backend cpu"), 13, "--backend gl-compute");
  const CliResult one = test::run_cli(small + " --gpus 2 -o one", t.dir);
  ASSERT_EQ(one.status, 0) << one.output;
  const CliResult two = mpirun("-np 2 {bin}" + small + " --gpus 1 -o two", t.dir);
  ASSERT_EQ(two.status, 0) << two.output;
  const std::string a = slurp(t.dir / "one" / "activity.nii"), b = slurp(t.dir / "two" / "activity.nii");
  ASSERT_EQ(a.size(), b.size());
  ASSERT_GT(a.size(), 352u);
  double num = 0, den = 0;
  for (std::size_t at = 352; at + 4 <= a.size(); at += 4) {
    float x = 0, y = 0;
    std::memcpy(&x, a.data() + at, 4);
    std::memcpy(&y, b.data() + at, 4);
    num += (double(x) - y) * (double(x) - y);
    den += double(x) * x;
  }
  EXPECT_LT(std::sqrt(num / den), 1e-5) << "gl-compute: 2 processes x 1 rank vs 1 process x 2";
}

TEST(MpiRun, AFailingProcessEndsTheJobWithOneMessage) {
  REQUIRE_MPI();
  TempDir t;
  // Rank 0 runs a good scene and waits in the team's first collective; rank 1's scene is missing.
  const CliResult r = mpirun("-np 1 {bin}" + kSmall + " --gpus 1 -o out : -np 1 {bin} run nope.toml -o out", t.dir);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(test::count_occurrences(r.output, "nope.toml: scene file not found"), 1) << r.output;
  EXPECT_EQ(test::count_occurrences(r.output, "tomoraster:"), 1) << r.output;  // no "interrupted" line from rank 0
  EXPECT_FALSE(std::filesystem::exists(t.dir / "out")) << r.output;
  EXPECT_TRUE(std::filesystem::is_empty(t.dir)) << "a staging folder was left behind";
}

TEST(MpiRun, BadInputOnEveryProcessIsOneMessage) {
  REQUIRE_MPI();
  TempDir t;
  const CliResult r = mpirun("-np 2 {bin} run nope.toml -o out", t.dir);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(test::count_occurrences(r.output, "nope.toml: scene file not found"), 1) << r.output;
  const CliResult info = mpirun("-np 2 {bin} info", t.dir);
  EXPECT_EQ(info.status, 2) << info.output;
  EXPECT_EQ(test::count_occurrences(info.output, "only `tomoraster run` runs"), 1) << info.output;
}

}  // namespace
}  // namespace tomo
