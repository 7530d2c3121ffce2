// The iterative keys of [fdk]: fdk by default, every key read (none unused), names parsed once,
// and an iterative algorithm refused on a RabbitCT file (filtered projections) naming the key.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "compute/core/error.hpp"
#include "compute/core/scene.hpp"
#include "compute/fdk/config.hpp"
#include "compute/fdk/memory.hpp"
#include "compute/fdk/pipeline.hpp"
#include "compute/io/nifti.hpp"

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

namespace tomo::fdk {
namespace {

std::string config_error(const std::string& toml) {
  try {
    (void)FdkConfig::from_scene(Scene::load_string(toml, "<t>"));
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

// fdk.projector.interpolation and fdk.cgls.backprojector: parsed where the scene is read.
TEST(FdkIterativeConfig, ProjectorInterpolationAndCglsBackprojector) {
  const FdkConfig d = FdkConfig::from_scene(Scene::load_string("[fdk]\nalgorithm = \"cgls\"\n", "<t>"));
  EXPECT_EQ(d.projector.interpolation, Interpolation::exact);
  EXPECT_EQ(d.iterative.cgls_back, CglsBack::exact);
  const FdkConfig c = FdkConfig::from_scene(Scene::load_string(
      "[fdk]\nalgorithm = \"cgls\"\nprojector.interpolation = \"hardware\"\ncgls.backprojector = \"voxel\"\n", "<t>"));
  EXPECT_EQ(c.projector.interpolation, Interpolation::hardware);
  EXPECT_EQ(c.iterative.cgls_back, CglsBack::voxel);
  const std::string e = config_error("[fdk]\nprojector.interpolation = \"linear\"\n");
  EXPECT_NE(e.find("fdk.projector.interpolation"), std::string::npos) << e;
  EXPECT_NE(e.find("hardware"), std::string::npos) << e;
  EXPECT_NE(config_error("[fdk]\ncgls.backprojector = \"ray\"\n").find("fdk.cgls.backprojector"), std::string::npos);
}

// fdk.save_iterations within 1..iterations; fdk.initial_image on the volume's grid, finite; both
// only with an iterative algorithm.
TEST(FdkIterativeConfig, SaveIterationsAndInitialImage) {
  const FdkConfig c = FdkConfig::from_scene(
      Scene::load_string("[fdk]\nalgorithm = \"sirt\"\niterations = 9\nsave_iterations = [9, 3]\n", "<t>"));
  EXPECT_EQ(c.iterative.save_iterations, (std::vector<int>{3, 9}));
  const std::string beyond = config_error("[fdk]\nalgorithm = \"sirt\"\niterations = 5\nsave_iterations = [6]\n");
  EXPECT_NE(beyond.find("fdk.save_iterations"), std::string::npos) << beyond;
  EXPECT_NE(beyond.find("outside 1..5"), std::string::npos) << beyond;
  const std::string fdk = config_error("[fdk]\nsave_iterations = [1]\n");
  EXPECT_NE(fdk.find("needs an iterative fdk.algorithm"), std::string::npos) << fdk;

  const auto dir = std::filesystem::temp_directory_path() / "fdk_initial_image_test";
  std::filesystem::create_directories(dir);
  const Grid3 grid = rabbit_grid(8, 256.0);
  VolumeF v(grid);
  for (std::size_t j = 0; j < v.data.size(); ++j) v.data[j] = 0.001f * static_cast<float>(j % 7);
  write_nifti(dir / "start.nii", v);
  const std::string scene = "[fdk]\nalgorithm = \"sirt\"\nL = 8\ninitial_image = \"" + (dir / "start.nii").string() + "\"\n";
  const FdkConfig ok = FdkConfig::from_scene(Scene::load_string(scene, "<t>"));
  EXPECT_EQ(ok.iterative.initial, v.data);
  const std::string wrong = config_error("[fdk]\nalgorithm = \"sirt\"\nL = 16\ninitial_image = \"" +
                                         (dir / "start.nii").string() + "\"\n");
  EXPECT_NE(wrong.find("fdk.initial_image"), std::string::npos) << wrong;
  v.data[5] = std::numeric_limits<float>::quiet_NaN();
  write_nifti(dir / "nan.nii", v);
  const std::string nan = config_error("[fdk]\nalgorithm = \"sirt\"\nL = 8\ninitial_image = \"" +
                                       (dir / "nan.nii").string() + "\"\n");
  EXPECT_NE(nan.find("voxel (5, 0, 0)"), std::string::npos) << nan;
  EXPECT_NE(nan.find("is NaN"), std::string::npos) << nan;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tomo::fdk
