// Time to image: every problem's report.json splits the run's wall time into stages that add up
// (docs/multigpu.md, "Time to image"). A small scene of each problem on the cpu backend.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>
#include <string>

#include <nlohmann/json.hpp>

#include "compute/core/report.hpp"
#include "compute/core/stages.hpp"
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
    if (std::string(s) != "unaccounted") {
      EXPECT_GE(v, 0.0) << s;
    }
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
  // The backends' probes and the device (a CUDA context on a GPU: about 0.1 s) are timed as
  // "contexts", part of startup, wherever a problem resolves its backend before its stages.
  if (std::string(c.problem) == "safir" || std::string(c.problem) == "oat")
    EXPECT_TRUE(rep["timings_ms"].contains("contexts")) << c.problem << ": " << rep["timings_ms"].dump(1);
}

INSTANTIATE_TEST_SUITE_P(EveryProblem, Stages, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.problem); });

}  // namespace
}  // namespace tomo

namespace tomo {
namespace {

TEST(StageOfTiming, NamesOfEveryProblem) {
  EXPECT_EQ(stage_of_timing("simulate"), "simulation");
  EXPECT_EQ(stage_of_timing("read_data"), "reading");
  EXPECT_EQ(stage_of_timing("read_reference"), "reading");
  EXPECT_EQ(stage_of_timing("filter_setup:cpu"), "setup");
  EXPECT_EQ(stage_of_timing("filter:cuda"), "iterations");
  EXPECT_EQ(stage_of_timing("backproject:cuda"), "iterations");
  EXPECT_EQ(stage_of_timing("iterate.cuda.warp"), "iterations");
  EXPECT_EQ(stage_of_timing("back_ratio"), "iterations");
  EXPECT_EQ(stage_of_timing("contexts"), "startup");
  EXPECT_EQ(stage_of_timing("write_rct"), "writing");
  EXPECT_EQ(stage_of_timing("crosscheck.cuda"), "checks");
  EXPECT_EQ(stage_of_timing("total"), "");
  EXPECT_EQ(stage_of_timing("voxelise:cpu"), "");
}

// Nested scopes count once: the inner one to its stage, the outer keeps the rest.
TEST(StageClock, NestedScopesAreExclusiveAndAddUp) {
  RunReport r;
  r.begin_stages(std::chrono::steady_clock::now());
  {
    auto outer = r.time("mlem");
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    {
      auto inner = r.time("write");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    r.add_timing("sensitivity", 10.0);  // timed elsewhere, just ended: not the outer scope's
  }
  std::thread([&] {  // another thread's scope does not count, nor its timing while no scope is open
    auto t = r.time("simulate");
    r.add_timing("read_data", 5.0);
  }).join();
  {
    auto outer = r.time("fit");
    std::thread([&] {  // a rank's pass while the owner waits in a scope
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      r.add_timing("configure", 7.0);
    }).join();
  }
  r.finish_stages();
  const auto& ms = r.json()["stages"]["ms"];
  EXPECT_GE(ms["writing"].get<double>(), 20.0);
  EXPECT_LT(ms["writing"].get<double>(), 200.0);
  EXPECT_EQ(ms["sensitivity"].get<double>(), 10.0);
  EXPECT_EQ(ms["simulation"].get<double>(), 0.0);
  EXPECT_EQ(ms["reading"].get<double>(), 0.0);
  EXPECT_EQ(ms["setup"].get<double>(), 7.0);
  EXPECT_GE(ms["iterations"].get<double>(), 20.0);  // 30 ms minus the 10 ms given to the sensitivity
  double sum = 0;
  for (const auto& [k, v] : ms.items()) sum += v.get<double>();
  EXPECT_NEAR(sum, r.json()["stages"]["wall_ms"].get<double>(), 1e-6);
  EXPECT_GE(ms["unaccounted"].get<double>(), 0.0);
}

}  // namespace
}  // namespace tomo
