// Time to image: every problem's report.json splits the run's wall time into stages that add up
// (docs/multigpu.md, "Time to image"). A small scene of each problem on the cpu backend.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/apps/cli_run.hpp"

namespace tomo {
namespace {

struct Case {
  const char* problem;
  const char* args;  // after `run`
  const char* main_stage;  // a stage the run must spend time in
};

const Case kCases[] = {
    {"glpet",
     "default.toml --set glpet.voxels=[12,12,6] --set glpet.voxel_mm=[2.5,2.5,2.5] --set glpet.iterations=3"
     " --set glpet.mc.histories=100000",
     "simulation"},
    {"safir",
     "safir_default.toml --set safir.rings=8 --set safir.crystals=48 --set safir.image=[20,20,8] --set safir.voxel_mm=2.0"
     " --set safir.events=20000 --set safir.iterations=2",
     "iterations"},
    {"strip", "strip_default.toml --set strip.events=20000 --set strip.iterations=2 --set strip.save_iterations=[2]",
     "iterations"},
    {"fdk",
     "fdk_default.toml --set fdk.L=32 --set fdk.geometry.projections=62 --set fdk.geometry.detector_columns=156"
     " --set fdk.geometry.detector_rows=120 --set fdk.geometry.pixel_mm=2.56",
     "iterations"},
    {"oat",
     "oat_default.toml --set oat.grid=[16,16,16] --set oat.voxel_mm=1.5 --set oat.rings=8 --set oat.views=16"
     " --set oat.pls.iterations=2",
     "iterations"},
    {"musr", "musr_default.toml --set musr.bins=2000 --set musr.detectors=4", "iterations"},
};

class Stages : public ::testing::TestWithParam<Case> {};

TEST_P(Stages, ArePresentAndAddUpToTheWallTime) {
  const Case& c = GetParam();
  test::TempDir t;
  const test::CliResult r = test::run_cli(std::string("run ") + c.args + " --backend cpu -o out", t.dir);
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream in(t.dir / "out" / "report.json");
  const auto rep = nlohmann::json::parse(in);
  ASSERT_EQ(rep["problem"], c.problem);
  ASSERT_TRUE(rep.contains("stages")) << rep.dump(1);
  const auto& st = rep["stages"];
  const double wall = st["wall_ms"].get<double>();
  EXPECT_GT(wall, 0.0);
  // The run ends after the problem's own "total": the stages count from the process start.
  EXPECT_GE(wall, rep["timings_ms"]["total"]["total_ms"].get<double>());
  double sum = 0;
  for (const char* s : {"startup", "reading", "simulation", "setup", "sensitivity", "iterations", "checks", "writing",
                        "unaccounted"}) {
    ASSERT_TRUE(st["ms"].contains(s)) << c.problem << ": no stage " << s;
    const double v = st["ms"][s].get<double>();
    if (std::string(s) != "unaccounted") EXPECT_GE(v, 0.0) << s;
    sum += v;
  }
  EXPECT_EQ(st["ms"].size(), 9u) << st.dump();
  EXPECT_NEAR(sum, wall, 1e-6 * wall) << "the stages and the unaccounted rest make up the wall time";
  const double rest = st["ms"]["unaccounted"].get<double>();
  EXPECT_GE(rest, 0.0);
  EXPECT_LE(rest, 0.05 * wall) << c.problem << ": " << st.dump(1);
  EXPECT_GT(st["ms"][c.main_stage].get<double>(), 0.0) << c.problem << ": " << st.dump(1);
  EXPECT_GT(st["ms"]["startup"].get<double>(), 0.0);
  EXPECT_GT(st["ms"]["writing"].get<double>(), 0.0);
}

INSTANTIATE_TEST_SUITE_P(EveryProblem, Stages, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.problem); });

}  // namespace
}  // namespace tomo
