// The fdk problem with an iterative algorithm, run in-process on the embedded example scene
// fdk_tv.toml (8 views of the head at 32³): the same outputs as an FDK run, the algorithm and
// its iterations in the report, and on these 8 views a smaller error than FDK's.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/scene.hpp"
#include "compute/io/nifti.hpp"
#include "compute/io/output_dir.hpp"
#include "tests/support/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace tomo;

namespace {

nlohmann::json run_example(const std::string& algorithm, const fs::path& out_dir,
                           const std::vector<std::string>& overrides = {}) {
  Scene s = Scene::load_string(embedded_scene("fdk_tv.toml"), "fdk_tv.toml");
  s.apply_override("fdk.algorithm=\"" + algorithm + "\"");
  for (const std::string& o : overrides) s.apply_override(o);
  RunReport report;
  OutputDir out(out_dir, true);
  RunContext ctx{s, "cpu", out, report};
  ProblemRegistry::instance().find("fdk").run(ctx);
  out.commit();
  return report.json();
}

}  // namespace

TEST(FdkIterativeRun, ExampleSceneWritesFdksOutputsAndBeatsFdk) {
  tomo::test::TempDir t;
  const nlohmann::json tv = run_example("tv", t.dir / "tv");
  for (const char* f : {"fdk_volume.nii", "fdk_slice_xy.png", "fdk_slice_xz.png", "fdk_slice_yz.png"})
    EXPECT_TRUE(fs::is_regular_file(t.dir / "tv" / f)) << f;
  EXPECT_EQ(tv["algorithm"], "tv");
  EXPECT_EQ(tv["backend"], "cpu");
  EXPECT_EQ(tv["metrics"]["iterations"], 50);
  EXPECT_LT(tv["metrics"]["relative_residual"].get<double>(), 0.1);
  const nlohmann::json fdk = run_example("fdk", t.dir / "fdk");
  EXPECT_EQ(fdk["algorithm"], "fdk");
  const double e_tv = tv["metrics"]["phantom_nrmse_fov"], e_fdk = fdk["metrics"]["phantom_nrmse_fov"];
  // Measured 0.144 and 0.201: over the field of view, skull included.
  EXPECT_LT(e_tv, 0.16);
  EXPECT_LT(e_tv, 0.8 * e_fdk);
}

// fdk.save_iterations writes the image after those iterations; fdk.initial_image resumes from
// one: SIRT 3 + 3 from the saved image gives the image of 6 straight through.
TEST(FdkIterativeRun, SavedIterationsResumeSirt) {
  tomo::test::TempDir t;
  (void)run_example("sirt", t.dir / "straight", {"fdk.iterations=6", "fdk.save_iterations=[3, 6]"});
  for (const char* f : {"fdk_volume_iter003.nii", "fdk_volume_iter006.nii"})
    EXPECT_TRUE(fs::is_regular_file(t.dir / "straight" / f)) << f;
  const fs::path start = t.dir / "straight" / "fdk_volume_iter003.nii";
  (void)run_example("sirt", t.dir / "resumed", {"fdk.iterations=3", "fdk.initial_image=\"" + start.string() + "\""});
  const VolumeF straight = read_nifti(t.dir / "straight" / "fdk_volume.nii");
  const VolumeF six = read_nifti(t.dir / "straight" / "fdk_volume_iter006.nii");
  const VolumeF resumed = read_nifti(t.dir / "resumed" / "fdk_volume.nii");
  EXPECT_EQ(six.data, straight.data);
  ASSERT_EQ(resumed.data.size(), straight.data.size());
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < straight.data.size(); ++i) {
    diff += (double(resumed.data[i]) - straight.data[i]) * (double(resumed.data[i]) - straight.data[i]);
    norm += double(straight.data[i]) * straight.data[i];
  }
  EXPECT_GT(norm, 0.0);
  EXPECT_LE(std::sqrt(diff / norm), 1e-6);
}
