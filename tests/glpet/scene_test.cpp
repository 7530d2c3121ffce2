// glpet scene reading (the embedded default scene), input validation, and an end-to-end
// run of the registered problem on a tiny version of scenes/glpet_small.toml.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/scene.hpp"
#include "compute/glpet/config.hpp"
#include "compute/io/output_dir.hpp"
#include "tests/support/input_errors.hpp"

namespace tomo::glpet {
namespace {

Scene scene_file(const char* name) { return Scene::load_file(std::filesystem::path(TOMO_SOURCE_DIR) / "scenes" / name); }

// scenes/glpet_small.toml with every occurrence of `from` replaced by `to`.
Scene small_scene_with(const std::string& from, const std::string& to) {
  std::ifstream in(std::filesystem::path(TOMO_SOURCE_DIR) / "scenes" / "glpet_small.toml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (std::size_t pos = 0; (pos = text.find(from, pos)) != std::string::npos; pos += to.size())
    text.replace(pos, from.size(), to);
  return Scene::load_string(text, "glpet_small(test).toml");
}

TEST(GlpetScene, DefaultSceneHasTheIssueGeometry) {
  Scene s = scene_file("glpet_default.toml");
  s.apply_override("glpet.voxels=[8,8,8]");  // keep the voxelisation quick; the rest as in the file
  const GlpetScene g = read_glpet_scene(s);
  ASSERT_EQ(g.system.scanner.pairs.size(), 1u);
  const auto& pair = g.system.scanner.pairs[0];
  EXPECT_EQ(pair.n_a(), 32);
  EXPECT_EQ(pair.n_t(), 32);
  EXPECT_DOUBLE_EQ(pair.modules[0].pitch_a, 2.0);
  EXPECT_DOUBLE_EQ(pair.modules[1].centre[2] - pair.modules[0].centre[2], 160.0);
  EXPECT_EQ(g.system.R, 4);
  EXPECT_EQ(g.system.N, 1);
  EXPECT_EQ(g.system.K, 32);
  EXPECT_EQ(g.system.lor_count(), 1024u * 1024u);
  EXPECT_EQ(g.activity.shapes.size(), 4u);
  EXPECT_GT(g.system.sigma_t.data[g.system.grid.index(4, 4, 4)], 0.009f);  // water
  EXPECT_FALSE(embedded_scene("glpet_default.toml").empty());
}

TEST(GlpetScene, BadInputNamesTheKey) {
  Scene s = scene_file("glpet_small.toml");
  s.apply_override("glpet.R=0");
  try {
    read_glpet_scene(s);
    FAIL() << "R = 0 accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("glpet.R"), std::string::npos) << e.what();
  }
  Scene t = small_scene_with("detectors = [16, 16]\npitch_mm = [4.0, 4.0]\n\n[[glpet.pairs]]",
                             "detectors = [8, 16]\npitch_mm = [4.0, 4.0]\n\n[[glpet.pairs]]");
  EXPECT_THROW(read_glpet_scene(t), InputError);  // a pair needs equal detector counts
}

TEST(GlpetScene, MonteCarloDeviceKey) {
  Scene s = scene_file("glpet_small.toml");
  s.apply_override("glpet.voxels=[4,4,4]");
  EXPECT_EQ(read_glpet_scene(s).mc_device, McDevice::automatic);
  s.apply_override("glpet.mc.device=\"host\"");
  EXPECT_EQ(read_glpet_scene(s).mc_device, McDevice::host);
  s.apply_override("glpet.mc.device=\"gpu\"");
  const std::string why = test::message_of([&] { read_glpet_scene(s); });
  EXPECT_NE(why.find("glpet.mc.device"), std::string::npos) << why;
  // auto follows the backend: the CUDA generator for cuda (where this build has it), else the host.
  EXPECT_EQ(resolve_mc_device(McDevice::automatic, "cpu"), McDevice::host);
  EXPECT_EQ(resolve_mc_device(McDevice::automatic, "gl-compute"), McDevice::host);
  EXPECT_EQ(resolve_mc_device(McDevice::automatic, "cuda"), cuda_generator_built() ? McDevice::cuda : McDevice::host);
  EXPECT_EQ(resolve_mc_device(McDevice::host, "cuda"), McDevice::host);
}

TEST(GlpetScene, RunWritesOutputsAndMetrics) {
  Scene s = small_scene_with("detectors = [16, 16]\npitch_mm = [4.0, 4.0]", "detectors = [8, 8]\npitch_mm = [8.0, 8.0]");
  s.apply_override("glpet.voxels=[10,10,10]");
  s.apply_override("glpet.voxel_mm=[6.0,6.0,6.0]");
  s.apply_override("glpet.iterations=3");
  s.apply_override("glpet.mc.histories=300000");
  runtime_options().progress = false;
  const auto dir = std::filesystem::temp_directory_path() / "glpet_scene_test_out";
  std::filesystem::remove_all(dir);
  RunReport report;
  {
    OutputDir out(dir, true);
    RunContext ctx{s, "cpu", out, report};
    ProblemRegistry::instance().find("glpet").run(ctx);
    out.commit();
  }
  for (const char* f : {"activity.nii", "activity_mip.png", "sensitivity.nii", "atlas_measured.png",
                        "atlas_estimated.png", "correspondence_centre.png"})
    EXPECT_TRUE(std::filesystem::exists(dir / f)) << f;
  const auto& j = report.json();
  ASSERT_TRUE(j.contains("nrmse_per_iteration"));
  EXPECT_EQ(j["nrmse_per_iteration"].size(), 3u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tomo::glpet
