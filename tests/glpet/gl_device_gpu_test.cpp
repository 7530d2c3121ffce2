// glpet GL backends on the GPU machine (label gpu): the default scene's geometry (32×32
// modules, 2 mm pitch, R = 4, K = 32) on the 16³ cross-check grid against the cpu (the
// per-pass timings are bench_glpet's). Skips on software GL (llvmpipe runs the
// gl_*_test.cpp suites instead).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "compute/core/scene.hpp"
#include "renderer/gl/engine.hpp"
#include "compute/glpet/cpu_projector.hpp"
#include "compute/glpet/crosscheck.hpp"
#include "compute/glpet/config.hpp"
#include "tests/support/gl_test.hpp"

namespace tomo::glpet {
namespace {

bool have_hardware_gl() {
  if (!gl::availability().ok) return false;
  return gl::shared_context().info().gl_renderer.find("llvmpipe") == std::string::npos;
}

GlpetScene default_scene() {
  return read_glpet_scene(Scene::load_file(std::filesystem::path(TOMO_SOURCE_DIR) / "scenes" / "glpet_default.toml"));
}

// Printed when the ratio back-projection disagrees: tells which side is off on this
// machine (cpu determinism, the upload of y and ỹ, the plain back-projection of the
// host-computed ratio y/ỹ, and the backend's own back_ratio against that).
void print_back_ratio_diagnostics(Projector& cpu, Projector& op, const CrosscheckInput& in) {
  cpu.configure(in.system);
  op.configure(in.system);
  const std::vector<float> yc = forward_host(cpu, in.x);
  std::vector<float> ratio(yc.size());
  std::size_t nonpos = 0, nonfinite = 0;
  for (std::size_t l = 0; l < yc.size(); ++l) {
    ratio[l] = yc[l] > 0 ? in.y[l] / yc[l] : 0.0f;
    nonpos += yc[l] <= 0;
    nonfinite += !std::isfinite(in.y[l]) || !std::isfinite(yc[l]);
  }
  auto ratio_of = [&](Projector& p, std::vector<float>& b, std::vector<float>& s) {
    auto by = p.make_lors(), bt = p.make_lors(), bb = p.make_image(), bs = p.make_image();
    by->upload(in.y);
    bt->upload(yc);
    const std::vector<float> ry = download(*by), rt = download(*bt);
    std::size_t bad = 0;
    for (std::size_t l = 0; l < ry.size(); ++l) bad += ry[l] != in.y[l] || rt[l] != yc[l];
    p.back_ratio(*by, *bt, *bb, bs.get());
    b = download(*bb);
    s = download(*bs);
    return bad;
  };
  std::vector<float> bc1, sc1, bc2, sc2, bo, so;
  ratio_of(cpu, bc1, sc1);
  ratio_of(cpu, bc2, sc2);
  const std::size_t upload_bad = ratio_of(op, bo, so);
  const std::vector<float> back_c = back_host(cpu, ratio), back_o = back_host(op, ratio);
  std::printf("  diagnostics %s: ỹ<=0 on %zu of %zu LORs, non-finite %zu; cpu back_ratio vs itself %.3g; "
              "y/ỹ uploads differing %zu; back(y/ỹ): %s vs cpu %.3g, cpu back vs cpu back_ratio %.3g, "
              "%s back_ratio vs %s back(y/ỹ) %.3g\n",
              op.describe().c_str(), nonpos, yc.size(), nonfinite, relative_l2(bc2, bc1), upload_bad,
              op.describe().c_str(), relative_l2(back_o, back_c), relative_l2(back_c, bc1), op.describe().c_str(),
              op.describe().c_str(), relative_l2(bo, back_o));
}

TEST(GlDeviceGlpetGpu, DefaultGeometryMatchesCpu) {
  if (!have_hardware_gl()) GTEST_SKIP() << "no hardware GL";
  tomo::test::gl_context();
  const GlpetScene g = default_scene();
  SystemModel sys = g.system;
  sys.grid = Grid3::centred({16, 16, 16}, {4.0, 4.0, 4.0});  // the default 64 mm field of view
  // Clamped as `tomoraster crosscheck` does (the phantom has a negative cold sphere).
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
    if (r.back_rel_l2 >= (raster ? 2e-2 : 1e-4)) print_back_ratio_diagnostics(cpu, *op, in);
    EXPECT_LT(r.atlas_rel_l2, raster ? 2e-2 : 1e-4) << name;
    EXPECT_LT(r.back_rel_l2, raster ? 2e-2 : 1e-4) << name;
    EXPECT_LT(r.sens_rel_l2, raster ? 2e-2 : 1e-4) << name;
    EXPECT_LE(r.line_diff_fraction, raster ? 1e-2 : 1e-3) << name;
  }
}

}  // namespace
}  // namespace tomo::glpet
