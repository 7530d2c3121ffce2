// report.json of an oat run: the stages in timings_ms (setup, contexts, simulation, writing,
// fbp, pls) add up to the run's total, so a slow step outside them cannot hide.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/scene.hpp"
#include "compute/io/output_dir.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::oat::test {

TEST(OatStagesReport, StagesAddUpToTheTotal) {
  tomo::test::TempDir t;
  Scene s = Scene::load_string(embedded_scene("oat_default.toml"), "oat_default.toml");
  for (const char* o : {"oat.grid=[20, 20, 20]", "oat.voxel_mm=1.0", "oat.rings=6", "oat.views=12",
                        "oat.pls.iterations=3", "oat.pls.regulariser=\"tv\"", "oat.pls.mu=0.1"})
    s.apply_override(o);
  RunReport report;
  OutputDir out(t.dir / "run", true);
  RunContext ctx{s, "cpu", out, report};
  {
    auto total = report.time("total");  // as the CLI times a run
    ProblemRegistry::instance().find("oat").run(ctx);
  }
  out.commit();
  const nlohmann::json& timings = report.json()["timings_ms"];
  std::set<std::string> stages;
  double sum = 0;
  for (const auto& [stage, v] : timings.items()) {
    if (stage == "total") continue;
    stages.insert(stage);
    sum += v["total_ms"].get<double>();
  }
  const double total = timings["total"]["total_ms"].get<double>();
  EXPECT_EQ(stages, (std::set<std::string>{"setup", "contexts", "simulation", "writing", "fbp", "pls"}));
  std::printf("stages %.1f ms of %.1f ms\n", sum, total);
  EXPECT_LE(sum, total);
  EXPECT_GE(sum, 0.97 * total - 2.0);  // what lies between the timers: a few ms of bookkeeping
  EXPECT_EQ(report.json()["pls"]["regulariser"], "tv");
  EXPECT_EQ(report.json()["pls"]["solver"], "fista");
  EXPECT_GT(report.json()["pls"]["lambda"].get<double>(), 0.0);
}

}  // namespace tomo::oat::test
