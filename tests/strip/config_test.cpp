// The [strip] scene section: the shipped default scene reads to the seed's parameters, and bad
// values stop with tomo::InputError naming the key.
#include <gtest/gtest.h>

#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/scene.hpp"
#include "compute/strip/config.hpp"

namespace tomo::strip {
namespace {

TEST(StripConfig, DefaultSceneHasTheSeedParameters) {
  const Scene scene = Scene::load_file(std::string(TOMO_SOURCE_DIR) + "/scenes/strip_default.toml");
  EXPECT_EQ(scene.problem(), "strip");
  const StripConfig c = StripConfig::from_scene(scene);
  EXPECT_DOUBLE_EQ(c.geometry.R, 130.0);
  EXPECT_DOUBLE_EQ(c.geometry.L, 300.0);
  EXPECT_DOUBLE_EQ(c.geometry.pixel_y, 4.0);
  EXPECT_EQ(c.geometry.n_y, 65);
  EXPECT_EQ(c.geometry.n_z, 75);
  EXPECT_DOUBLE_EQ(c.resolution.sigma_z, 10.0);
  EXPECT_DOUBLE_EQ(c.resolution.sigma_dl, 40.0);
  ASSERT_EQ(c.phantom.rows.size(), 6u);
  const auto a = StripPhantom::appendix_a();
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_DOUBLE_EQ(c.phantom.rows[i].x, a.rows[i].x);
    EXPECT_DOUBLE_EQ(c.phantom.rows[i].phi, a.rows[i].phi);
    EXPECT_DOUBLE_EQ(c.phantom.rows[i].rho, a.rows[i].rho);
  }
  EXPECT_TRUE(scene.unused_keys().empty());
}

TEST(StripConfig, BadValuesAreInputErrors) {
  auto load = [](const std::string& body) { return StripConfig::from_scene(Scene::load_string("problem = \"strip\"\n[strip]\n" + body, "t.toml")); };
  EXPECT_THROW(load("R = -1.0\n"), InputError);
  EXPECT_THROW(load("granularity = \"block\"\n"), InputError);
  EXPECT_EQ(load("granularity = \"thread\"\n").options.granularity, Granularity::thread);
  EXPECT_EQ(load("").simulator, SimulatorChoice::automatic);
  EXPECT_EQ(load("simulator = \"cuda\"\n").simulator, SimulatorChoice::cuda);
  EXPECT_EQ(load("simulator = \"host\"\n").simulator, SimulatorChoice::host);
  try {
    load("simulator = \"gpu\"\n");
    ADD_FAILURE() << "simulator = \"gpu\" was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("strip.simulator"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load("iterations = 5\nsave_iterations = [6]\n"), InputError);
  EXPECT_THROW(load("n_y = 100\n"), InputError);  // 100 × 4 mm pixels reach beyond the strips
  EXPECT_THROW(load("[[strip.phantom]]\nx = 0.0\ny = 0.0\na = -1.0\nb = 1.0\nrho = 1.0\n"), InputError);
  EXPECT_NO_THROW(load("events = 10\n"));
}

TEST(StripConfig, LoweredIterationsDropTheScenesLaterSavesButNotTheCallers) {
  Scene scene = Scene::load_file(std::string(TOMO_SOURCE_DIR) + "/scenes/strip_default.toml");
  ASSERT_GT(StripConfig::from_scene(scene).save_iterations.size(), 1u);
  scene.apply_override("strip.iterations=2");
  EXPECT_EQ(StripConfig::from_scene(scene).save_iterations, std::vector<int>{1});
  scene.apply_override("strip.save_iterations=[1, 3]");  // written together: a mistake
  EXPECT_THROW(StripConfig::from_scene(scene), InputError);
}

}  // namespace
}  // namespace tomo::strip
