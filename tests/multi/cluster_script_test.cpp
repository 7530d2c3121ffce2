// The Slurm script of docs/multigpu.md ("A Slurm job"), run as written with mpirun as the
// launcher: two processes on this host, cpu ranks, small scenes.
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

// The ```sh block after the page's cluster-script marker.
std::string cluster_script() {
  const std::string doc = slurp(std::filesystem::path(TOMO_SOURCE_DIR) / "docs" / "multigpu.md");
  const std::size_t mark = doc.find("<!-- cluster-script -->");
  if (mark == std::string::npos) return "";
  const std::size_t begin = doc.find("```sh\n", mark), end = doc.find("```", begin + 6);
  if (begin == std::string::npos || end == std::string::npos) return "";
  return doc.substr(begin + 6, end - begin - 6);
}

TEST(ClusterScript, RunsAsTwoProcessesOnOneHost) {
  if (test::mpiexec().empty()) GTEST_SKIP() << "built without MPI";
  const std::string script = cluster_script();
  ASSERT_NE(script.find("#SBATCH"), std::string::npos) << "no cluster script in docs/multigpu.md";
  test::TempDir t;
  {
    std::ofstream f(t.dir / "job.sh");
    f << script;
  }
  std::string cmd = "cd '" + t.dir.string() + "' && ";
  cmd.append(test::kMpirunEnv);
  cmd.append("LAUNCH='").append(test::mpiexec()).append(" -np 2' TOMORASTER='").append(TOMO_BINARY).append(" --no-progress' ");
  cmd.append("BACKEND=cpu GLPET_SETS='--set glpet.voxels=[12,12,6] --set glpet.voxel_mm=[6,6,6] --set glpet.R=1 --set glpet.iterations=2 "
             "--set glpet.mc.histories=100000' ");
  cmd.append("STRIP_SETS='--set strip.events=20000 --set strip.iterations=2 --set strip.save_iterations=[2]' ");
  cmd.append("bash job.sh 2>&1");
  const auto r = test::run_command(cmd);
  ASSERT_EQ(r.status, 0) << r.output;
  const auto ring = nlohmann::json::parse(slurp(t.dir / "out" / "ring" / "report.json"));
  EXPECT_EQ(ring["multi_gpu"]["processes"], 2);
  EXPECT_EQ(ring["multi_gpu"]["ranks"], 2);
  const auto strip = nlohmann::json::parse(slurp(t.dir / "out" / "strip" / "report.json"));
  EXPECT_EQ(strip["problem"], "strip");
  EXPECT_EQ(strip["metrics"]["events"], 20000);
  EXPECT_GT(strip["metrics"]["correlation_rho_phantom"].get<double>(), 0.5);
}

}  // namespace
}  // namespace tomo
