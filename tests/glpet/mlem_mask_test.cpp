// ML-EM reconstructs only its field of view. Voxels whose sensitivity is below
// glpet.sensitivity_threshold × the largest are held at 0 (they grew without bound at the edge),
// the rest are updated; a threshold of 0 masks nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/scene.hpp"
#include "compute/glpet/cpu_projector.hpp"
#include "compute/glpet/mlem.hpp"
#include "compute/glpet/config.hpp"
#include "tests/glpet/small_system.hpp"

namespace tomo::glpet {
namespace {

TEST(GlpetMlemMask, VoxelsBelowTheSensitivityThresholdStayZero) {
  const auto sys = test::small_system();
  CpuProjector op;
  op.configure(sys);
  std::vector<float> truth(sys.voxel_count(), 1.0f);
  const std::vector<float> y = forward_host(op, truth);
  MlemOptions opt;
  opt.iterations = 3;
  opt.sensitivity_threshold = 0.5;  // a large field-of-view cut, so that many voxels are masked
  const MlemResult res = run_mlem(op, y, {}, opt);
  const float smax = *std::max_element(res.sensitivity.begin(), res.sensitivity.end());
  std::size_t below = 0, updated = 0;
  for (std::size_t v = 0; v < res.x.size(); ++v) {
    ASSERT_TRUE(std::isfinite(res.x[v]));
    if (res.sensitivity[v] > 0 && res.sensitivity[v] < 0.5f * smax) {
      ++below;
      EXPECT_EQ(res.x[v], 0.0f) << "voxel " << v << " is outside the field of view";
    } else if (res.sensitivity[v] > 0 && res.x[v] > 0) {
      ++updated;
    }
  }
  EXPECT_EQ(res.masked, below);
  EXPECT_GT(below, 0u);
  EXPECT_GT(updated, 0u);

  opt.sensitivity_threshold = 0.0;
  const MlemResult all = run_mlem(op, y, {}, opt);
  EXPECT_EQ(all.masked, 0u);
  for (std::size_t v = 0; v < all.x.size(); ++v)
    if (all.sensitivity[v] > 0) {
      EXPECT_GT(all.x[v], 0.0f) << "voxel " << v;
    }
}

TEST(GlpetMlemMask, SceneKeyHasADefaultAndARange) {
  const auto with = [](const std::string& set) {
    Scene s = Scene::load_string(embedded_scene("glpet_small.toml"), "<glpet_small.toml>");
    s.apply_override("glpet.voxels=[4,4,4]");
    if (!set.empty()) s.apply_override(set);
    return s;
  };
  EXPECT_DOUBLE_EQ(read_glpet_scene(with("")).sensitivity_threshold, 0.01);
  EXPECT_DOUBLE_EQ(read_glpet_scene(with("glpet.sensitivity_threshold=0.2")).sensitivity_threshold, 0.2);
  EXPECT_THROW(read_glpet_scene(with("glpet.sensitivity_threshold=2.0")), InputError);
}

}  // namespace
}  // namespace tomo::glpet
