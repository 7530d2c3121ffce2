// Data that are valid but hold nothing (all-zero LOR counts, a list-mode file of no event) are
// refused naming the file: their reconstruction would be all zero, a user's mistake. And a
// glpet.data.write name equal to an output of the run (which would overwrite it) is refused.
#include <gtest/gtest.h>

#include "tests/support/input_errors.hpp"

#include <filesystem>
#include <string>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/scene.hpp"
#include "compute/glpet/config.hpp"
#include "compute/glpet/data_io.hpp"
#include "compute/io/output_dir.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::glpet {
namespace {

namespace fs = std::filesystem;

Scene small_scene(const std::string& set) {
  Scene s = Scene::load_file(fs::path(TOMO_SOURCE_DIR) / "scenes" / "default.toml");
  for (const char* o : {"glpet.voxels=[6,6,4]", "glpet.voxel_mm=[7.0,7.0,7.0]", "glpet.iterations=1", "glpet.K=4",
                        "glpet.R=1", "glpet.mc.histories=20000"})
    s.apply_override(o);
  if (!set.empty()) s.apply_override(set);
  return s;
}

std::string run_error(const Scene& s, const fs::path& dir) { return test::run_error("glpet", s, dir); }

TEST(GlpetDegenerateData, AllZeroCountsAreRefused) {
  test::TempDir t;
  const Scanner sc = read_glpet_scene(small_scene("")).system.scanner;
  const fs::path counts = t.dir / "zero.npy";
  write_counts(counts, sc, std::vector<float>(sc.lor_count(), 0.0f));
  const std::string e = run_error(small_scene(str_cat("glpet.data.counts=\"", counts.string(), "\"")), t.dir / "out");
  EXPECT_NE(e.find("zero.npy (glpet.data.counts) holds no counts"), std::string::npos) << e;
}

TEST(GlpetDegenerateData, ListModeWithoutEventsIsRefused) {
  test::TempDir t;
  const Scanner sc = read_glpet_scene(small_scene("")).system.scanner;
  const fs::path lm = t.dir / "none.txt";
  write_listmode_text(lm, std::vector<ListModeEvent>{});
  const std::string e = run_error(small_scene(str_cat("glpet.data.listmode=\"", lm.string(), "\"")), t.dir / "out");
  EXPECT_NE(e.find("none.txt"), std::string::npos) << e;
  EXPECT_NE(e.find("no events"), std::string::npos) << e;
}

TEST(GlpetDegenerateData, DataWriteNamedLikeARunOutputIsRefused) {
  for (const char* name : {"activity.nii", "sensitivity.nii", "phantom_activity.nii"}) {
    try {
      (void)read_glpet_scene(small_scene(str_cat("glpet.data.write=[\"", name, "\"]")));
      ADD_FAILURE() << name << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(str_cat("'", name, "' is the name of an output of the run")),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_THROW((void)read_glpet_scene(small_scene("glpet.data.write=[\"c.npy\", \"c.npy\"]")), InputError);
  EXPECT_NO_THROW((void)read_glpet_scene(small_scene("glpet.data.write=[\"counts.npy\", \"events.lm\"]")));
}

}  // namespace
}  // namespace tomo::glpet
