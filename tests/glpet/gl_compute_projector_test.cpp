// The glpet `gl-compute` backend against the double-precision cpu reference on the small
// system (8×8 modules, 16³ voxels, R = 2, attenuation): float vs double within 1e-4
// relative L2 for forward, back, back_ratio, sensitivity; identical correspondence images.
#include <gtest/gtest.h>

#include <cstdio>

#include "compute/glpet/cpu_projector.hpp"
#include "tests/glpet/gl_fixtures.hpp"
#include "tests/support/gl_test.hpp"

namespace tomo::glpet {
namespace {

using test::rel_l2;

TEST(GlComputeGlpet, IsRegisteredAndAvailableOnThisGl) {
  tomo::test::gl_context();
  auto a = BackendRegistry<Projector>::instance().available("gl-compute");
  ASSERT_TRUE(a.ok) << a.why;
}

TEST(GlComputeGlpet, ForwardAndBackMatchCpu) {
  tomo::test::gl_context();
  const SystemModel sys = test::attenuating_system();
  CpuProjector cpu;
  cpu.configure(sys);
  auto gpu = test::make_backend("gl-compute", sys);
  const auto x = test::test_image(sys);
  const auto z = test::test_lors(sys);
  // Voxels with x_v = 0 are skipped by the forward passes: a third of them zero.
  std::vector<float> x0 = x;
  for (std::size_t v = 0; v < x0.size(); v += 3) x0[v] = 0.0f;
  const double e0 = rel_l2(forward_host(*gpu, x0), forward_host(cpu, x0));
  std::printf("%s vs cpu: forward with zero voxels %.3g\n", "gl-compute", e0);
  EXPECT_LT(e0, 1e-4);

  const auto y_ref = forward_host(cpu, x), y = forward_host(*gpu, x);
  const double ef = rel_l2(y, y_ref);
  const auto b_ref = back_host(cpu, z), b = back_host(*gpu, z);
  const double eb = rel_l2(b, b_ref);
  const auto s_ref = sensitivity_host(cpu), s = sensitivity_host(*gpu);
  const double es = rel_l2(s, s_ref);
  std::printf("gl-compute vs cpu: forward %.3g  back %.3g  sensitivity %.3g (relative L2)\n", ef, eb, es);
  EXPECT_LT(ef, 1e-4);
  EXPECT_LT(eb, 1e-4);
  EXPECT_LT(es, 1e-4);
  // Not trivially zero: the forward projection carries the expected mass.
  double sum = 0;
  for (float v : y_ref) sum += v;
  EXPECT_GT(sum, 0.1);
}

TEST(GlComputeGlpet, BackRatioAndUpdateMatchCpuOnThreePairs) {
  tomo::test::gl_context();
  SystemModel sys = test::attenuating_system(8, 2, 8);
  sys.N = 2;  // two samples per voxel
  test::add_side_pair(sys);
  test::add_tilted_pair(sys);
  CpuProjector cpu;
  cpu.configure(sys);
  auto gpu = test::make_backend("gl-compute", sys);
  const auto x = test::test_image(sys);
  const auto y_ref = forward_host(cpu, x), y = forward_host(*gpu, x);
  EXPECT_LT(rel_l2(y, y_ref), 1e-4);
  // Measured data: a ±30 % modulation of ỹ (some LORs of ỹ are 0: those terms count 0).
  std::vector<float> meas(y_ref.size());
  for (std::size_t l = 0; l < meas.size(); ++l) meas[l] = float(y_ref[l] * (1.0 + 0.3 * std::sin(1.3 * double(l))));

  auto run = [&](Projector& op, std::vector<float>& b, std::vector<float>& s, std::vector<float>& xn) {
    auto by = op.make_lors(), bt = op.make_lors(), bb = op.make_image(), bs = op.make_image(), bx = op.make_image();
    by->upload(meas);
    bt->upload(y_ref);
    bx->upload(x);
    op.back_ratio(*by, *bt, *bb, bs.get());
    op.mlem_update(*bx, *bb, *bs);
    b = download(*bb);
    s = download(*bs);
    xn = download(*bx);
  };
  std::vector<float> b_ref, s_ref, x_ref, b, s, xn;
  run(cpu, b_ref, s_ref, x_ref);
  run(*gpu, b, s, xn);
  std::printf("gl-compute vs cpu (3 pairs, N = 2): ratio %.3g  sens %.3g  update %.3g\n", rel_l2(b, b_ref),
              rel_l2(s, s_ref), rel_l2(xn, x_ref));
  EXPECT_LT(rel_l2(b, b_ref), 1e-4);
  EXPECT_LT(rel_l2(s, s_ref), 1e-4);
  EXPECT_LT(rel_l2(xn, x_ref), 1e-4);
}

TEST(GlComputeGlpet, CorrespondenceImagesHaveTheCpuLines) {
  tomo::test::gl_context();
  SystemModel sys = test::attenuating_system();
  test::add_side_pair(sys);
  test::add_tilted_pair(sys);
  CpuProjector cpu;
  cpu.configure(sys);
  auto gpu = test::make_backend("gl-compute", sys);
  std::size_t lines = 0, differ = 0;
  double wmax = 0;
  // Generic probes, plus mid-plane samples whose lines hit detector edges exactly (ties
  // that double-precision geometry decides as the cpu does).
  auto probes = test::probe_points();
  for (const Vec3& v : std::vector<Vec3>{{0.5, 0.5, 0}, {1.5, -2.5, 0}, {-6.5, 3.5, 0}}) probes.push_back(v);
  for (std::size_t pair = 0; pair < 3; ++pair)
    for (const Vec3& v : probes) {
      std::vector<CorrespondencePixel> a, ref;
      ASSERT_TRUE(cpu.correspondence_image(pair, v, ref));
      ASSERT_TRUE(gpu->correspondence_image(pair, v, a));
      ASSERT_EQ(a.size(), ref.size());
      const auto d = test::compare_images(a, ref);
      lines += d.lines;
      differ += d.differ;
      wmax = std::max(wmax, d.weight_rel);
    }
  std::printf("gl-compute correspondence: %zu lines, %zu differ, max weight rel. diff %.3g\n", lines, differ, wmax);
  EXPECT_GT(lines, 1000u);
  EXPECT_EQ(differ, 0u);  // double-precision geometry: the cpu's secondary detectors
  EXPECT_LT(wmax, 1e-5);
}

}  // namespace
}  // namespace tomo::glpet
