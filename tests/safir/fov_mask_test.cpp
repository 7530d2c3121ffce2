// safir's ML-EM holds voxels outside the scanner's field of view (the cylinder of the crystals'
// front faces over the rings' axial extent) at 0, whatever their sensitivity; safir.fov_mask =
// false turns it off. The image here reaches beyond the cylinder, transaxially and axially.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/scene.hpp"
#include "compute/io/nifti.hpp"
#include "compute/io/output_dir.hpp"
#include "compute/safir/config.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::safir {
namespace {

namespace fs = std::filesystem;

// 8 rings of 32 crystals (front faces at 11.2 mm, ± 8.8 mm axially), 30 × 30 × 22 voxels of 1 mm.
Scene scene(const std::string& extra) {
  return Scene::load_string("problem = \"safir\"\n[safir]\nrings = 8\ncrystals = 32\nimage = [30, 30, 22]\n"
                            "voxel_mm = 1.0\niterations = 2\nevents = 20000\n" + extra +
                            "[safir.phantom]\nderenzo = false\ncylinder_radius_mm = 8.0\ncylinder_length_mm = 10.0\n"
                            "background = 1.0\n",
                            "s.toml");
}

struct Outputs {
  nlohmann::json report;
  VolumeF image, sensitivity;
};

Outputs run_safir(const Scene& s, const fs::path& dir) {
  runtime_options().progress = false;
  RunReport report;
  {
    OutputDir out(dir, true);
    RunContext ctx{s, "cpu", out, report};
    ProblemRegistry::instance().find("safir").run(ctx);
    out.commit();
  }
  return {report.json(), read_nifti(dir / "image.nii"), read_nifti(dir / "sensitivity.nii")};
}

TEST(SafirFovMask, VoxelsOutsideTheScannerCylinderStayZero) {
  test::TempDir t;
  const SafirConfig c = SafirConfig::from_scene(scene(""));
  const FieldOfView fov = field_of_view(c.scanner);
  EXPECT_NEAR(fov.radius_mm, c.scanner.radius(), 1e-12);
  EXPECT_NEAR(fov.z_max_mm, 8.8, 1e-12);
  const Outputs on = run_safir(scene(""), t.dir / "on");
  const Outputs off = run_safir(scene("fov_mask = false\n"), t.dir / "off");
  const Grid3 g = c.box.grid();
  std::size_t outside_sensitive = 0, outside_hot_without = 0, inside_hot = 0;
  for (int k = 0; k < g.dims[2]; ++k)
    for (int j = 0; j < g.dims[1]; ++j)
      for (int i = 0; i < g.dims[0]; ++i) {
        const std::size_t v = g.index(i, j, k);
        if (!fov.contains(g.centre(i, j, k))) {
          EXPECT_EQ(on.image.data[v], 0.0f) << "voxel " << i << "," << j << "," << k << " is outside the field of view";
          outside_sensitive += on.sensitivity.data[v] > 0;
          outside_hot_without += off.image.data[v] > 0;
        } else {
          inside_hot += on.image.data[v] > 0;
        }
      }
  EXPECT_GT(outside_sensitive, 0u) << "the scene must have sensitive voxels outside the cylinder";
  EXPECT_GT(outside_hot_without, 0u);
  EXPECT_GT(inside_hot, 0u);
  EXPECT_EQ(on.report["metrics"]["fov_masked_voxels"].get<double>(), double(outside_sensitive));
}

}  // namespace
}  // namespace tomo::safir
