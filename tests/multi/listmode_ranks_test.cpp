// strip on several ranks (docs/multigpu.md, "safir and strip"): events dealt to the ranks, the
// ratio images summed before every update. cpu ranks: two threads (--gpus 2) equal one rank
// within float summation order; two processes (mpirun) equal one process of two ranks bit for bit,
// and each process simulates only its share of the Monte-Carlo.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compute/multi/process_share.hpp"
#include "compute/multi/summed_subsets.hpp"
#include "tests/apps/cli_run.hpp"
#include "tests/multi/fixtures.hpp"

namespace tomo {
namespace {

using test::slurp;
using test::nifti_floats;
using test::relative_l2;
using test::report_of;

const std::string kStrip =
    " run strip_default.toml --backend cpu --set strip.events=70000 --set strip.iterations=3"
    " --set strip.save_iterations=[3] --set strip.threads=1";

TEST(RankEvents, EveryEventOnceInOneRunAndEachKeepsItsSubset) {
  for (const int subsets : {1, 3, 8})
    for (const int ranks : {1, 2, 3}) {
      std::vector<int> seen(100, 0);
      for (int r = 0; r < ranks; ++r) {
        const auto mine = rank_event_indices(100, subsets, r, ranks);
        for (std::size_t local = 0; local < mine.size(); ++local) {
          ++seen[mine[local]];
          EXPECT_EQ(local % std::size_t(subsets), mine[local] % std::size_t(subsets)) << "subset kept";
        }
        // One run starting at a whole block: the rank's events are a view of the list, no copy.
        const EventRange e = rank_event_range(100, subsets, r, ranks);
        EXPECT_EQ(e.first % std::size_t(subsets), 0u);
        ASSERT_EQ(mine.size(), e.count);
        for (std::size_t local = 0; local < mine.size(); ++local) EXPECT_EQ(mine[local], e.first + local);
        // Shares differ by at most one block.
        EXPECT_NEAR(double(mine.size()), 100.0 / ranks, double(subsets)) << subsets << " " << ranks;
      }
      for (int n : seen) EXPECT_EQ(n, 1);
    }
}

TEST(ProcessShare, ChunksDealtInTurn) {
  const ProcessShare one{}, second{1, 3};
  EXPECT_TRUE(one.mine(5));
  EXPECT_EQ(one.count(7), 7);
  EXPECT_TRUE(second.mine(4));
  EXPECT_FALSE(second.mine(5));
  EXPECT_EQ(second.count(7), 2);  // chunks 1 and 4
  EXPECT_EQ(ProcessShare({2, 3}).count(7), 2);
  EXPECT_EQ(ProcessShare({0, 3}).count(7), 3);
}

TEST(StripRanks, TwoCpuRanksEqualOneWithinFloatOrder) {
  test::TempDir t;
  for (const std::string algo : {"mlem", "osem"}) {
    const std::string set = algo == "osem" ? " --set strip.algorithm='\"osem\"' --set strip.subsets=4" : "";
    const auto one = test::run_cli(kStrip + set + " -o one-" + algo, t.dir);
    ASSERT_EQ(one.status, 0) << one.output;
    const auto two = test::run_cli(kStrip + set + " --gpus 2 -o two-" + algo, t.dir);
    ASSERT_EQ(two.status, 0) << two.output;
    const auto a = nifti_floats(t.dir / ("one-" + algo) / "rho.nii"), b = nifti_floats(t.dir / ("two-" + algo) / "rho.nii");
    EXPECT_LT(relative_l2(b, a), 1e-6) << algo;
    double sum = 0;
    for (float v : a) sum += v;
    EXPECT_GT(sum, 0.0);
    const auto r1 = report_of(t.dir / ("one-" + algo)), r2 = report_of(t.dir / ("two-" + algo));
    EXPECT_NEAR(r2["metrics"]["correlation_rho_phantom"].get<double>(),
                r1["metrics"]["correlation_rho_phantom"].get<double>(), 1e-7);
    EXPECT_EQ(r2["devices"].size(), 2u) << r2["devices"];
    EXPECT_EQ(r2["devices"][1], "cpu rank 1");
  }
}

TEST(StripRanks, GlBackendsAreRefusedWithOneLine) {
  test::TempDir t;
  const auto r = test::run_cli(" run strip_default.toml --backend gl-compute --set strip.events=1000 --gpus 2 -o x", t.dir);
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_NE(r.output.find("strip runs as several ranks on the cpu and cuda backends, not on gl-compute"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(t.dir / "x"));
}

TEST(StripRanks, TwoProcessesEqualOneProcessOfTwoRanksAndSplitTheSimulation) {
  if (test::mpiexec().empty()) GTEST_SKIP() << "built without MPI";
  test::TempDir t;
  const auto one = test::run_cli(kStrip + " --gpus 2 -o one", t.dir);
  ASSERT_EQ(one.status, 0) << one.output;
  std::string cmd = "cd '" + t.dir.string() + "' && ";
  cmd.append(test::kMpirunEnv).append(test::mpiexec()).append(" -np 2 ").append(TOMO_BINARY);
  cmd.append(" --no-progress -v").append(kStrip).append(" --gpus 1 -o two 2>&1");
  const auto two = test::run_command(cmd);
  ASSERT_EQ(two.status, 0) << two.output;
  // 70000 events are 3 chunks of the simulator: 2 on process 0, 1 on process 1.
  EXPECT_NE(two.output.find("strip Monte-Carlo: process 0 of 2 runs 2 of 3 chunks"), std::string::npos) << two.output;
  EXPECT_NE(two.output.find("strip Monte-Carlo: process 1 of 2 runs 1 of 3 chunks"), std::string::npos) << two.output;
  for (const char* f : {"rho.nii", "rho_prime_iter003.nii", "direct.nii"})
    EXPECT_TRUE(slurp(t.dir / "one" / f) == slurp(t.dir / "two" / f)) << f << " differs";
  const auto r1 = report_of(t.dir / "one"), r2 = report_of(t.dir / "two");
  EXPECT_EQ(r2["metrics"]["emissions"], r1["metrics"]["emissions"]);
  EXPECT_EQ(r2["metrics"]["events"], 70000);
  EXPECT_EQ(r2["devices"].size(), 1u);  // process 0's ranks
}

}  // namespace
}  // namespace tomo
