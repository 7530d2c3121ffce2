// glpet GL backends on the GPU machine (label gpu): the default scene's geometry (32×32
// modules, 2 mm pitch, R = 4, K = 32) on the 16³ cross-check grid against the cpu, and
// the per-pass timings of gl_pass_timings() on a 128×128×8 slab of the 128³ grid,
// scaled to 128³. Skips on software GL (llvmpipe runs the gl_*_test.cpp suites instead).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "core/scene.hpp"
#include "gl/engine.hpp"
#include "glpet/cpu_projector.hpp"
#include "glpet/crosscheck.hpp"
#include "glpet/gl_pass_timings.hpp"
#include "glpet/scene_model.hpp"
#include "support/gl_test.hpp"

namespace tomo::glpet {
namespace {

bool have_hardware_gl() {
  if (!gl::availability().ok) return false;
  return gl::shared_context().info().gl_renderer.find("llvmpipe") == std::string::npos;
}

GlpetScene default_scene() {
  return read_glpet_scene(Scene::load_file(std::filesystem::path(TOMO_SOURCE_DIR) / "scenes" / "glpet_default.toml"));
}

TEST(GlDeviceGlpetGpu, DefaultGeometryMatchesCpu) {
  if (!have_hardware_gl()) GTEST_SKIP() << "no hardware GL";
  tomo::test::gl_context();
  const GlpetScene g = default_scene();
  SystemModel sys = g.system;
  sys.grid = Grid3::centred({16, 16, 16}, {4.0, 4.0, 4.0});  // the default 64 mm field of view
  // Clamped as `tomoraster crosscheck` does: the cold sphere's negative value must not
  // leave negative activity where it pokes out of the cylinder (ỹ near 0 there).
  sys.sigma_t = g.attenuation.voxelize(sys.grid, 2);
  for (float& v : sys.sigma_t.data) v = std::max(v, 0.0f);
  VolumeF activity = g.activity.voxelize(sys.grid, 2);
  for (float& v : activity.data) v = std::max(v, 0.0f);
  CpuProjector cpu;
  cpu.configure(sys);
  const CrosscheckInput in = make_crosscheck_input(sys, activity, cpu);
  for (const char* name : {"gl-compute", "gl"}) {
    auto op = BackendRegistry<Projector>::instance().create(name);
    op->configure(sys);
    const CrosscheckResult r = compare(cpu, *op, in);
    std::printf("%-10s atlas %.3g  back %.3g  sens %.3g  lines differing %.3g of %zu\n", name, r.atlas_rel_l2,
                r.back_rel_l2, r.sens_rel_l2, r.line_diff_fraction, r.lines_compared);
    const bool raster = std::string(name) == "gl";
    EXPECT_LT(r.atlas_rel_l2, raster ? 2e-2 : 1e-4) << name;
    EXPECT_LT(r.back_rel_l2, raster ? 2e-2 : 1e-4) << name;
    EXPECT_LT(r.sens_rel_l2, raster ? 2e-2 : 1e-4) << name;
    EXPECT_LE(r.line_diff_fraction, raster ? 1e-2 : 1e-3) << name;
  }
}

TEST(GlDeviceGlpetGpu, PassTimingsOfTheDefaultScene) {
  if (!have_hardware_gl()) GTEST_SKIP() << "no hardware GL";
  tomo::test::gl_context();
  const GlpetScene g = default_scene();
  SystemModel sys = g.system;
  const int slab = 8;
  sys.grid = Grid3::centred({128, 128, slab}, {0.5, 0.5, 0.5});
  sys.sigma_t = g.attenuation.voxelize(sys.grid, 2);
  VolumeF act = g.activity.voxelize(sys.grid, 2);
  for (float& a : act.data) a += 0.05f;  // x > 0 everywhere: no voxel is skipped
  const std::vector<float> y(sys.lor_count(), 1.0f);
  const auto rows = gl_pass_timings(sys, act.data, y, 2);
  const double scale = 128.0 / slab;
  std::printf("glpet GL passes, default scene geometry, %d voxels timed, scaled to 128^3:\n", int(sys.voxel_count()));
  std::printf("%-10s %-14s %12s %14s %12s %14s\n", "backend", "pass", "ms (slab)", "us/voxel", "s (128^3)", "rate/s");
  for (const auto& r : rows)
    std::printf("%-10s %-14s %12.3f %14.5f %12.3f %14.4g %s\n", r.backend.c_str(), r.pass.c_str(), r.ms,
                r.ms_per_voxel * 1e3, r.ms * scale * 1e-3, r.ms > 0 ? r.work / (r.ms * 1e-3) : 0.0, r.unit.c_str());
  std::printf("seed (8800 GTX, per voxel): correspondence 60 us, atlas 70 us, forward 130 us, reduction 40 us\n");
  EXPECT_FALSE(rows.empty());
}

}  // namespace
}  // namespace tomo::glpet
