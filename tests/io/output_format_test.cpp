// The scene's `output_format`: its values and refusals (with the scene's other keys, before any
// output exists), write_image's files in each format, and a whole run writing both formats
// with report-listed files that hold the same image.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "compute/core/output_format.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/scene.hpp"
#include "compute/io/image_output.hpp"
#include "compute/io/interfile.hpp"
#include "compute/io/nifti.hpp"
#include "tests/support/input_errors.hpp"
#include "tests/support/temp_dir.hpp"

using namespace tomo;
using tomo::test::message_of;

namespace {

Scene scene_with(const std::string& line) {
  return Scene::load_string("problem = \"demo\"\n" + line + "\n", "s.toml");
}

}  // namespace

TEST(OutputFormat, ValuesAndDefault) {
  EXPECT_EQ(output_formats(scene_with("")), (ImageFormats{.nifti = true, .interfile = false}));
  EXPECT_EQ(output_formats(scene_with("output_format = \"interfile\"")), (ImageFormats{.nifti = false, .interfile = true}));
  EXPECT_EQ(output_formats(scene_with("output_format = \"nifti\"")), (ImageFormats{.nifti = true, .interfile = false}));
  EXPECT_EQ(output_formats(scene_with("output_format = [\"interfile\", \"nifti\"]")),
            (ImageFormats{.nifti = true, .interfile = true}));
  Scene s = scene_with("");
  s.apply_override("output_format=interfile");
  EXPECT_EQ(output_formats(s), (ImageFormats{.nifti = false, .interfile = true}));
}

TEST(OutputFormat, RefusalsComeWithTheSceneKeyCheck) {
  const std::string usage = " must be \"nifti\", \"interfile\" or a list of them, e.g. [\"nifti\", \"interfile\"]";
  EXPECT_EQ(message_of([] { scene_with("output_format = \"png\"").check_unknown_keys(); }),
            "s.toml: key 'output_format' has 'png'; it" + usage);
  EXPECT_EQ(message_of([] { scene_with("output_format = 3").check_unknown_keys(); }), "s.toml: key 'output_format'" + usage);
  EXPECT_EQ(message_of([] { scene_with("output_format = []").check_unknown_keys(); }),
            "s.toml: key 'output_format' is an empty list; it" + usage);
  EXPECT_EQ(message_of([] { scene_with("output_format = [\"nifti\", \"nifti\"]").check_unknown_keys(); }),
            "s.toml: key 'output_format' lists 'nifti' twice");
  EXPECT_EQ(message_of([] { scene_with("output_formats = \"nifti\"").check_unknown_keys(); }),
            "s.toml: unknown key 'output_formats' (did you mean 'output_format'?)");
  EXPECT_EQ(message_of([] { scene_with("output_format = \"interfile\"").check_unknown_keys(); }), "no exception");
}

TEST(OutputFormat, WriteImageWritesTheAskedFormatsThroughTheOutputDir) {
  test::TempDir t;
  VolumeF v(Grid3{{3, 2, 2}, {1, 1, 1}, {0, 0, 0}}, 2.5f);
  OutputDir out(t.dir / "run", false);
  write_image(out, "a", v);
  out.set_image_formats({.nifti = false, .interfile = true});
  write_image(out, "b", v, {"activity", "a.u."});
  out.set_image_formats({.nifti = true, .interfile = true});
  write_image(out, "c", v);
  EXPECT_EQ(out.files(), (std::vector<std::string>{"a.nii", "b.hv", "b.v", "c.nii", "c.hv", "c.v"}));
  out.commit();
  EXPECT_EQ(read_interfile(t.dir / "run" / "b.hv").data, v.data);
  EXPECT_EQ(read_nifti(t.dir / "run" / "c.nii").data, read_interfile(t.dir / "run" / "c.hv").data);
}

// A demo run (cpu voxeliser, 8³) with both formats: report outputs name every file, and the
// Interfile image equals the NIfTI one voxel for voxel, on the same grid.
TEST(OutputFormat, ARunWritesBothFormats) {
  test::TempDir t;
  runtime_options().progress = false;
  Scene s = Scene::load_string(std::string(embedded_scene("demo.toml")), "demo.toml");
  s.apply_override("demo.size=[8, 8, 8]");
  s.apply_override("output_format=[\"nifti\", \"interfile\"]");
  RunReport report;
  OutputDir out(t.dir / "run", false);
  RunContext ctx{s, "cpu", out, report};
  ProblemRegistry::instance().find("demo").run(ctx);
  const std::vector<std::string> files = out.files();
  for (const char* f : {"phantom.nii", "phantom.hv", "phantom.v"})
    EXPECT_NE(std::find(files.begin(), files.end(), f), files.end()) << f;
  out.commit();
  const VolumeF n = read_nifti(t.dir / "run" / "phantom.nii");
  NiftiMeta meta;
  const VolumeF i = read_interfile(t.dir / "run" / "phantom.hv", meta);
  EXPECT_EQ(i.grid.dims, n.grid.dims);
  for (int a = 0; a < 3; ++a) EXPECT_NEAR(i.grid.origin_mm[a], n.grid.origin_mm[a], 1e-6);
  EXPECT_EQ(i.data, n.data);
  EXPECT_EQ(meta.quantity, "phantom density");
}
