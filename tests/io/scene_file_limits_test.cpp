// A scene file is sized before it is read, so a device or a data file
// named as the scene is refused at once instead of filling memory.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "compute/core/error.hpp"
#include "compute/core/scene.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo {
namespace {

std::string error_of(const std::filesystem::path& p) {
  try {
    (void)Scene::load_file(p);
  } catch (const InputError& e) {
    return e.what();
  }
  return "<accepted>";
}

TEST(SceneFileLimits, DeviceAndHugeFilesAreRefusedBeforeReading) {
  EXPECT_NE(error_of("/dev/zero").find("not a regular file"), std::string::npos) << error_of("/dev/zero");
  test::TempDir dir;
  const auto big = dir.dir / "big.toml";
  std::ofstream(big) << "problem = \"strip\"\n";
  std::filesystem::resize_file(big, 17u << 20);  // sparse: nothing is written
  const std::string e = error_of(big);
  EXPECT_NE(e.find("too large for a scene"), std::string::npos) << e;
  EXPECT_NE(e.find(std::to_string(17u << 20)), std::string::npos) << e;
  EXPECT_NE(error_of(dir.dir / "missing.toml").find("scene file not found"), std::string::npos);
  EXPECT_NE(error_of(dir.dir).find("not a regular file"), std::string::npos);
  const auto ok = dir.dir / "ok.toml";
  std::ofstream(ok) << "problem = \"strip\"\n[strip]\nR = 400.0\n";
  EXPECT_EQ(Scene::load_file(ok).get<std::string>("problem", ""), "strip");
}

}  // namespace
}  // namespace tomo
