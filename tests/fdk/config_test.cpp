// FdkConfig::from_scene: every key of the default scene read once (none reported unused, whichever
// command runs), the source told apart, enums parsed, and bad values refused naming the key.
#include <gtest/gtest.h>

#include <string>

#include "compute/core/error.hpp"
#include "compute/core/scene.hpp"
#include "compute/fdk/config.hpp"

namespace tomo::fdk {
namespace {

TEST(FdkConfig, ReadsEveryKeyOfTheDefaultScene) {
  const Scene s = Scene::load_string(embedded_scene("fdk_default.toml"), "fdk_default.toml");
  const FdkConfig c = FdkConfig::from_scene(s);
  EXPECT_EQ(c.L, 128);
  EXPECT_EQ(c.batch, 31);
  EXPECT_EQ(c.source, Source::simulated);
  EXPECT_EQ(c.reference, ReferenceRun::none);
  EXPECT_EQ(c.geometry.projections, 124);
  EXPECT_EQ(c.crosscheck.L, 32);
  EXPECT_EQ(c.crosscheck.geometry.sx, 156);
  EXPECT_DOUBLE_EQ(c.crosscheck.hardware_tolerance, 5e-3);
  EXPECT_FLOAT_EQ(c.hu_scale[0], 50000.0f);  // 1000 / mu
  EXPECT_DOUBLE_EQ(c.window[1], 0.008);
  EXPECT_DOUBLE_EQ(c.grid.voxel_mm[0], 2.0);
  for (const std::string& k : s.unused_keys())  // problem and backend: read by the CLI
    EXPECT_TRUE(k == "backend" || k == "problem") << k << " is not read";
}

TEST(FdkConfig, EnumsAndSources) {
  const Scene s = Scene::load_string(
      "problem = \"fdk\"\n[fdk]\nreference = \"cpu\"\ninterpolation = \"exact\"\n[fdk.raw]\nprojections = \"x.npy\"\n"
      "intensity = true\ni0 = 5.0\n",
      "<test>");
  const FdkConfig c = FdkConfig::from_scene(s);
  EXPECT_EQ(c.reference, ReferenceRun::cpu);
  EXPECT_EQ(c.options.interpolation, Interpolation::exact);
  EXPECT_EQ(c.source, Source::raw);  // the stack is opened by load_raw_input, not here
  EXPECT_TRUE(c.raw.intensity);
  EXPECT_DOUBLE_EQ(c.raw.i0, 5.0);
}

TEST(FdkConfig, BadValuesNameTheirKey) {
  const auto refused = [](const std::string& body, const std::string& key) {
    try {
      (void)FdkConfig::from_scene(Scene::load_string("problem = \"fdk\"\n[fdk]\n" + body, "<test>"));
    } catch (const InputError& e) {
      return std::string(e.what()).find(key) != std::string::npos;
    }
    return false;
  };
  EXPECT_TRUE(refused("reference = \"gpu\"\n", "fdk.reference"));
  EXPECT_TRUE(refused("L = 1\n", "fdk.L"));
  EXPECT_TRUE(refused("hu_scale = [1.0]\n", "fdk.hu_scale"));
  EXPECT_TRUE(refused("[fdk.raw]\ni0 = -1.0\n", "fdk.raw.i0"));  // validated without a stack
  EXPECT_TRUE(refused("[fdk.crosscheck]\nL = 1000\n", "fdk.crosscheck.L"));
}

}  // namespace
}  // namespace tomo::fdk
