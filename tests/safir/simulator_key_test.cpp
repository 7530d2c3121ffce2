// safir.simulator: the key's values, a refused one naming the key, and the generator a run takes
// ("auto" on the cpu backend: the host; "cuda": the GPU where one is there, else one refusal).
#include <gtest/gtest.h>

#include <string>

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/scene.hpp"
#include "compute/io/output_dir.hpp"
#include "compute/safir/config.hpp"
#include "tests/support/input_errors.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::safir {
namespace {

// 8 rings of 32 crystals, a 12 x 12 x 8 image of 1 mm, 2000 simulated events, one iteration.
Scene scene(const std::string& body) {
  return Scene::load_string("problem = \"safir\"\n[safir]\nrings = 8\ncrystals = 32\nvoxel_mm = 1.0\niterations = 1\n"
                            "image = [12, 12, 8]\nevents = 2000\n" + body,
                            "s.toml");
}

TEST(SafirSimulatorKey, ValuesAndARefusal) {
  EXPECT_EQ(SafirConfig::from_scene(scene("")).simulator, SimulatorChoice::automatic);
  EXPECT_EQ(SafirConfig::from_scene(scene("simulator = \"host\"\n")).simulator, SimulatorChoice::host);
  EXPECT_EQ(SafirConfig::from_scene(scene("simulator = \"cuda\"\n")).simulator, SimulatorChoice::cuda);
  const std::string why = test::message_of([] { (void)SafirConfig::from_scene(scene("simulator = \"gpu\"\n")); });
  EXPECT_NE(why.find("safir.simulator"), std::string::npos) << why;
}

// The generator named in report.json after a cpu run (throws what the run throws).
std::string simulator_of_run(const Scene& s, const std::filesystem::path& dir) {
  runtime_options().progress = false;
  RunReport report;
  OutputDir out(dir, true);
  RunContext ctx{s, "cpu", out, report};
  ProblemRegistry::instance().find("safir").run(ctx);
  return report.json().value("simulator", std::string("none"));
}

TEST(SafirSimulatorKey, AutoOnTheCpuBackendTakesTheHostAndCudaNeedsADevice) {
  test::TempDir t;
  EXPECT_EQ(simulator_of_run(scene(""), t.dir / "a"), "host");
  EXPECT_EQ(simulator_of_run(scene("simulator = \"host\"\n"), t.dir / "b"), "host");
  const bool device = BackendRegistry<EventGenerator>::instance().available("cuda").ok;
  if (device) {
    EXPECT_EQ(simulator_of_run(scene("simulator = \"cuda\"\n"), t.dir / "c"), "cuda");
  } else {
    try {
      (void)simulator_of_run(scene("simulator = \"cuda\"\n"), t.dir / "c");
      ADD_FAILURE() << "safir.simulator = \"cuda\" ran without a CUDA device";
    } catch (const UnavailableError& e) {
      EXPECT_NE(std::string(e.what()).find("safir.simulator = \"cuda\""), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace tomo::safir
