// No rank repeats global work: under mpirun, glpet's Monte-Carlo runs each chunk of histories on
// one process only, and the summed histogram is the one-process histogram, so the images are the
// same bit for bit (docs/multigpu.md, "No rank repeats global work").
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/apps/cli_run.hpp"
#include "tests/multi/fixtures.hpp"

namespace tomo {
namespace {

using test::slurp;

// 300000 histories are 5 chunks of 65536: 3 on process 0, 2 on process 1.
const std::string kGlpet =
    " run default.toml --backend cpu --set glpet.voxels=[12,12,6] --set glpet.voxel_mm=[2.5,2.5,2.5]"
    " --set glpet.iterations=2 --set glpet.mc.histories=300000";

TEST(MonteCarloSplit, GlpetProcessesRunTheirChunksAndAgreeBitForBit) {
  if (test::mpiexec().empty()) GTEST_SKIP() << "built without MPI";
  test::TempDir t;
  const auto one = test::run_cli(kGlpet + " --gpus 2 -o one", t.dir);
  ASSERT_EQ(one.status, 0) << one.output;
  EXPECT_EQ(one.output.find("Monte-Carlo: process"), std::string::npos) << "one process runs every chunk";
  std::string cmd = "cd '" + t.dir.string() + "' && ";
  cmd.append(test::kMpirunEnv).append(test::mpiexec()).append(" -np 2 ").append(TOMO_BINARY);
  cmd.append(" --no-progress -v").append(kGlpet).append(" --gpus 1 -o two 2>&1");
  const auto two = test::run_command(cmd);
  ASSERT_EQ(two.status, 0) << two.output;
  EXPECT_NE(two.output.find("glpet Monte-Carlo: process 0 of 2 runs 3 of 5 chunks"), std::string::npos) << two.output;
  EXPECT_NE(two.output.find("glpet Monte-Carlo: process 1 of 2 runs 2 of 5 chunks"), std::string::npos) << two.output;
  for (const char* f : {"activity.nii", "sensitivity.nii"}) {
    const std::string a = slurp(t.dir / "one" / f), b = slurp(t.dir / "two" / f);
    EXPECT_GT(a.size(), 352u) << f;
    EXPECT_TRUE(a == b) << f << " differs between one process and two";
  }
  const auto r1 = nlohmann::json::parse(slurp(t.dir / "one" / "report.json"));
  const auto r2 = nlohmann::json::parse(slurp(t.dir / "two" / "report.json"));
  EXPECT_EQ(r2["metrics"]["nrmse"], r1["metrics"]["nrmse"]);
  EXPECT_EQ(r2["metrics"]["mc_detected"], r1["metrics"]["mc_detected"]);  // the processes' counters summed
  EXPECT_EQ(r2["metrics"]["mc_geometric_fraction"], r1["metrics"]["mc_geometric_fraction"]);
  EXPECT_GT(r2["stages"]["ms"]["simulation"].get<double>(), 0.0);
}

}  // namespace
}  // namespace tomo
