// Inputs that are valid but make a reconstruction or an analysis of nothing are refused naming
// what is wrong: events that all join a crystal to itself, analysis positions outside the image
// (S = B = E = 0 was reported), and time frames so short that their images cannot fit in memory.
#include <gtest/gtest.h>

#include "tests/support/input_errors.hpp"

#include <filesystem>
#include <string>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/scene.hpp"
#include "compute/io/output_dir.hpp"
#include "compute/safir/config.hpp"
#include "compute/safir/list_io.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::safir {
namespace {

namespace fs = std::filesystem;

// A small scanner (8 rings of 32 crystals), an image of 12 x 12 x 8 voxels of 1 mm unless `image`.
Scene scene(const std::string& body, const std::string& image = "[12, 12, 8]") {
  return Scene::load_string("problem = \"safir\"\n[safir]\nrings = 8\ncrystals = 32\nvoxel_mm = 1.0\niterations = 1\n"
                            "image = " + image + "\n" + body,
                            "s.toml");
}

std::string run_error(const Scene& s, const fs::path& dir) { return test::run_error("safir", s, dir); }

TEST(SafirDegenerate, EventsThatAllJoinACrystalToItselfAreRefused) {
  test::TempDir t;
  const SafirConfig c = SafirConfig::from_scene(scene(""));
  ListMode lm;
  for (std::uint32_t a : {3u, 40u, 77u}) lm.events.push_back({a, a});
  lm.time_s = {0.0, 0.1, 0.2};
  lm.duration_s = 0.3;
  const fs::path file = t.dir / "self.clm.safir";
  write_clm_safir(file, lm, c.scanner);
  const std::string e = run_error(scene(str_cat("events_file = \"", file.string(), "\"\n")), t.dir / "out");
  EXPECT_NE(e.find("self.clm.safir"), std::string::npos) << e;
  EXPECT_NE(e.find("every one of its 3 prompt events joins a crystal to itself"), std::string::npos) << e;
}

TEST(SafirDegenerate, AnalysisPositionOutsideTheImageIsRefused) {
  EXPECT_NO_THROW(SafirConfig::from_scene(scene("analysis.positions_mm = [5.9, -5.9, 3.9]\n")));
  try {
    SafirConfig::from_scene(scene("analysis.positions_mm = [0.0, 0.0, 0.0, 100.0, 0.0, 0.0]\n"));
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("safir.analysis.positions_mm"), std::string::npos) << m;
    EXPECT_NE(m.find("position (100, 0, 0) mm lies outside the image, which spans [-6, 6] x [-6, 6] x [-4, 4] mm"),
              std::string::npos)
        << m;
  }
}

TEST(SafirDegenerate, FramesOfEventsFarApartThatCannotFitAreRefusedBeforeAllocating) {
  test::TempDir t;
  const SafirConfig c = SafirConfig::from_scene(scene(""));
  ListMode lm;
  lm.events = {{1, 50}, {2, 60}};
  lm.time_s = {0.0, 100.0};
  lm.duration_s = 100.0;
  const fs::path file = t.dir / "apart.clm.safir";
  write_clm_safir(file, lm, c.scanner);
  // 100 001 frames (the list ends 1 ms after its last time mark): more than a NIfTI holds.
  const std::string e =
      run_error(scene(str_cat("events_file = \"", file.string(), "\"\nframe_s = 0.001\n"), "[90, 90, 50]"), t.dir / "out");
  EXPECT_NE(e.find("safir.frame_s"), std::string::npos) << e;
  EXPECT_NE(e.find("into 100001 frames; a 4D NIfTI file holds at most 32767"), std::string::npos) << e;
}

}  // namespace
}  // namespace tomo::safir
