// The iterative keys of [fdk]: fdk by default, every key read (none unused), names parsed once,
// and an iterative algorithm refused on a RabbitCT file (filtered projections) naming the key.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "compute/core/error.hpp"
#include "compute/core/scene.hpp"
#include "compute/fdk/config.hpp"
#include "compute/fdk/memory.hpp"

namespace tomo::fdk {
namespace {

TEST(FdkIterativeConfig, ExampleSceneReadsEveryKey) {
  const Scene s = Scene::load_string(embedded_scene("fdk_tv.toml"), "fdk_tv.toml");
  const FdkConfig c = FdkConfig::from_scene(s);
  EXPECT_EQ(c.algorithm, Algorithm::tv);
  EXPECT_EQ(c.iterative.algorithm, Algorithm::tv);
  EXPECT_EQ(c.iterative.iterations, 50);
  EXPECT_EQ(c.iterative.subsets, 4);
  EXPECT_DOUBLE_EQ(c.iterative.tv_lambda, 2e-5);
  EXPECT_TRUE(c.iterative.nonnegative);
  EXPECT_DOUBLE_EQ(c.projector.step_voxels, 0.5);
  EXPECT_EQ(c.geometry.projections, 8);
  for (const std::string& k : s.unused_keys()) EXPECT_TRUE(k == "backend" || k == "problem") << k << " is not read";
}

TEST(FdkIterativeConfig, DefaultIsFdkAndNamesParse) {
  EXPECT_EQ(FdkConfig::from_scene(Scene::load_string("problem = \"fdk\"\n", "<t>")).algorithm, Algorithm::fdk);
  const FdkConfig c = FdkConfig::from_scene(
      Scene::load_string("[fdk]\nalgorithm = \"os-sart\"\nsubsets = 7\nnonnegative = false\n", "<t>"));
  EXPECT_EQ(c.iterative.algorithm, Algorithm::os_sart);
  EXPECT_EQ(c.iterative.subsets, 7);
  EXPECT_FALSE(c.iterative.nonnegative);
}

TEST(FdkIterativeConfig, BadValuesNameTheKey) {
  const auto error = [](const std::string& toml) -> std::string {
    try {
      (void)FdkConfig::from_scene(Scene::load_string(toml, "<t>"));
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(error("[fdk]\nalgorithm = \"art\"\n").find("fdk.algorithm"), std::string::npos);
  EXPECT_NE(error("[fdk]\niterations = 0\n").find("fdk.iterations"), std::string::npos);
  EXPECT_NE(error("[fdk]\ntv.lambda = -1.0\n").find("fdk.tv.lambda"), std::string::npos);
  const auto file = std::filesystem::temp_directory_path() / "fdk_iterative_config_test.rct";
  std::ofstream(file) << "a file is enough: the key is refused before it is read";
  const std::string rct = error("[fdk]\nalgorithm = \"sirt\"\ninput = \"" + file.string() + "\"\n");
  std::filesystem::remove(file);
  EXPECT_NE(rct.find("fdk.algorithm"), std::string::npos) << rct;
}

}  // namespace
}  // namespace tomo::fdk

namespace tomo::fdk {
namespace {

TEST(FdkIterativeConfig, MemoryEstimateCountsTheIterativeBuffers) {
  CArmGeometry g;
  g.projections = 8;
  g.sx = g.sy = 32;
  const Grid3 grid = Grid3::centred({64, 64, 64}, {1, 1, 1});
  const double N = 64.0 * 64 * 64, P = 8.0 * 32 * 32;
  MemoryEstimate tv;
  add_iterative(tv, grid, g, {.algorithm = Algorithm::tv});
  // 10 float volumes, 3 float stacks, the projector's double copies, 2 per-thread volumes.
  EXPECT_DOUBLE_EQ(tv.bytes, 10 * 4 * N + 3 * 4 * P + 8 * (N + P) + 16 * N);
  MemoryEstimate os;
  add_iterative(os, grid, g, {.algorithm = Algorithm::os_sart, .subsets = 4});
  EXPECT_DOUBLE_EQ(os.bytes, tv.bytes - 5 * 4 * N + 4 * 4 * N);  // one column-sum volume per subset
}

}  // namespace
}  // namespace tomo::fdk
