// ML-EM holds voxels outside a ring's field of view (the cylinder inscribed in its planar modules,
// over their axial extent) at 0 even where their sensitivity passes the threshold: between the
// inscribed circle and the polygon of an 8-module ring such voxels kept over 1 % of the largest
// sensitivity and could become the hottest of the image. glpet.fov_mask = false turns it off.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "compute/core/scene.hpp"
#include "compute/glpet/config.hpp"
#include "compute/glpet/cpu_projector.hpp"
#include "compute/glpet/mlem.hpp"

namespace tomo::glpet {
namespace {

// 8 modules of 8 × 4 detectors (1 mm × 2 mm) at 10 mm, 12 × 12 × 4 voxels of 2 mm: voxel centres
// reach 11 mm transaxially, beyond the inscribed circle but inside the octagon (10.8 mm).
Scene ring_scene(const std::string& set = "") {
  Scene s = Scene::load_string(R"(problem = "glpet"
[glpet]
voxels = [12, 12, 4]
voxel_mm = [2.0, 2.0, 2.0]
R = 1
K = 16
iterations = 4
[glpet.ring]
modules = 8
radius_mm = 10.0
detectors = [8, 4]
pitch_mm = [1.0, 2.0]
span = 1
[[glpet.activity]]
type = "sphere"
centre = [0.0, 0.0, 0.0]
radius = 5.0
value = 1.0
)",
                               "<ring>");
  if (!set.empty()) s.apply_override(set);
  return s;
}

TEST(GlpetFovMask, RingFieldOfViewIsTheInscribedCylinder) {
  const GlpetScene g = read_glpet_scene(ring_scene());
  EXPECT_DOUBLE_EQ(g.fov.radius_mm, 10.0);
  EXPECT_DOUBLE_EQ(g.fov.z_min_mm, -4.0);
  EXPECT_DOUBLE_EQ(g.fov.z_max_mm, 4.0);
  EXPECT_FALSE(read_glpet_scene(ring_scene("glpet.fov_mask=false")).fov.bounded());
}

// Scanners given module by module have no cylinder: the sensitivity threshold alone applies.
TEST(GlpetFovMask, ModulesListedOneByOneHaveNoCylinder) {
  Scene s = Scene::load_string(embedded_scene("glpet_small.toml"), "<glpet_small.toml>");
  s.apply_override("glpet.voxels=[4,4,4]");
  s.apply_override("glpet.fov_mask=true");
  EXPECT_FALSE(read_glpet_scene(s).fov.bounded());
}

TEST(GlpetFovMask, VoxelsOutsideTheFieldOfViewStayZeroAboveTheSensitivityCut) {
  const GlpetScene g = read_glpet_scene(ring_scene());
  CpuProjector op;
  op.configure(g.system);
  std::vector<float> truth(g.system.voxel_count(), 1.0f);  // activity everywhere, also outside
  const std::vector<float> y = forward_host(op, truth);
  MlemOptions opt;
  opt.iterations = 4;
  const MlemResult plain = run_mlem(op, y, {}, opt);
  opt.outside_fov = outside_field_of_view(g.system.grid, g.fov);
  ASSERT_EQ(opt.outside_fov.size(), g.system.voxel_count());
  const MlemResult fov = run_mlem(op, y, {}, opt);

  const float floor = sensitivity_floor<float>(plain.sensitivity, opt.sensitivity_threshold);
  std::size_t outside_above_cut = 0, inside_updated = 0;
  for (std::size_t v = 0; v < fov.x.size(); ++v) {
    const bool above = plain.sensitivity[v] > 0 && plain.sensitivity[v] >= floor;
    if (opt.outside_fov[v]) {
      EXPECT_EQ(fov.x[v], 0.0f) << "voxel " << v << " is outside the ring's field of view";
      if (above) {
        ++outside_above_cut;
        EXPECT_GT(plain.x[v], 0.0f) << "voxel " << v << " without the field-of-view mask";
      }
    } else if (above) {
      inside_updated += fov.x[v] > 0;
    }
  }
  EXPECT_GT(outside_above_cut, 0u) << "the scene must have voxels outside the circle above the cut";
  EXPECT_GT(inside_updated, 0u);
  EXPECT_EQ(fov.masked, plain.masked + outside_above_cut);
}

}  // namespace
}  // namespace tomo::glpet
