// [glpet.ring]: module placement and facing pairs checked by hand, the scene keys and their
// refusals, and ML-EM on a small ring (NRMSE falls, the hot sphere stands above the background).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <set>

#include "compute/core/error.hpp"
#include "compute/core/phantom.hpp"
#include "compute/core/scene.hpp"
#include "compute/glpet/cpu_projector.hpp"
#include "compute/glpet/metrics.hpp"
#include "compute/glpet/mlem.hpp"
#include "compute/glpet/monte_carlo.hpp"
#include "compute/glpet/ring.hpp"
#include "compute/glpet/config.hpp"
#include "tests/glpet/small_system.hpp"

namespace tomo::glpet {
namespace {

void expect_vec(const Vec3& a, const Vec3& b, const char* what) {
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(a[i], b[i], 1e-12) << what << " [" << i << "]";
}

TEST(GlpetRing, ModulesSitOnTheRingFacingTheAxis) {
  Ring r;  // 12 modules at 60 mm
  const auto m = ring_modules(r);
  ASSERT_EQ(m.size(), 12u);
  expect_vec(m[0].centre, {60, 0, 0}, "module 0 centre");
  expect_vec(m[0].normal, {-1, 0, 0}, "module 0 normal");
  expect_vec(m[0].axis_a, {0, 1, 0}, "module 0 axis_a");
  expect_vec(m[3].centre, {0, 60, 0}, "module 3 centre");
  expect_vec(m[3].normal, {0, -1, 0}, "module 3 normal");
  expect_vec(m[3].axis_a, {-1, 0, 0}, "module 3 axis_a");
  expect_vec(m[6].centre, {-60, 0, 0}, "module 6 centre");
  // Module 1 at 30°: centre 60·(cos 30°, sin 30°, 0) = (51.96…, 30, 0).
  expect_vec(m[1].centre, {60 * std::sqrt(3.0) / 2, 30, 0}, "module 1 centre");
  expect_vec(m[1].normal, {-std::sqrt(3.0) / 2, -0.5, 0}, "module 1 normal");
  for (const Module& mod : m) {
    expect_vec(mod.axis_t, {0, 0, 1}, "axis_t");
    EXPECT_NO_THROW(mod.validate("ring module"));
    EXPECT_EQ(mod.n_a, 8);
    EXPECT_DOUBLE_EQ(mod.width(), 32.0);
  }
  // A shifted, rotated ring.
  r.centre = {1, 2, 3};
  r.phase_deg = 90;
  expect_vec(ring_modules(r)[0].centre, {1, 62, 3}, "phase 90 centre");
  expect_vec(ring_modules(r)[0].axis_a, {-1, 0, 0}, "phase 90 axis_a");
}

TEST(GlpetRing, EachModuleIsPairedWithTheModulesFacingIt) {
  const auto p = ring_pairs(12, 1);
  ASSERT_EQ(p.size(), 18u);  // 12 at distance 5, 6 at distance 6
  const std::vector<std::array<int, 2>> first = {{0, 5}, {0, 6}, {0, 7}, {1, 6}, {1, 7}, {1, 8}};
  for (std::size_t i = 0; i < first.size(); ++i) EXPECT_EQ(p[i], first[i]) << "pair " << i;
  std::vector<int> uses(12, 0);
  for (const auto& ij : p) {
    EXPECT_LT(ij[0], ij[1]);
    ++uses[ij[0]];
    ++uses[ij[1]];
  }
  for (int u : uses) EXPECT_EQ(u, 3);
  EXPECT_EQ(ring_pairs(12, 0).size(), 6u);  // opposite modules only
  EXPECT_EQ(ring_pairs(5, 0), (std::vector<std::array<int, 2>>{{0, 2}, {0, 3}, {1, 3}, {1, 4}, {2, 4}}));
  const Scanner sc = ring_scanner(Ring{});
  ASSERT_EQ(sc.pairs.size(), 18u);
  EXPECT_EQ(sc.module_count(), 12);
  EXPECT_EQ(sc.module_ids(1), (std::array<int, 2>{0, 6}));
  expect_vec(sc.pairs[1].modules[1].centre, {-60, 0, 0}, "pair 1 second module");
  EXPECT_EQ(sc.lor_count(), 18u * 64 * 64);
}

TEST(GlpetRing, DefaultSceneIsARingAndBadRingsAreRefused) {
  Scene s = Scene::load_file(std::filesystem::path(TOMO_SOURCE_DIR) / "scenes" / "default.toml");
  const Scanner sc = read_scanner(s);
  EXPECT_EQ(sc.pairs.size(), 18u);
  EXPECT_EQ(sc.module_count(), 12);
  auto refused = [](const std::string& text, const std::string& part) {
    Scene t = Scene::load_string("problem = \"glpet\"\n" + text, "ring(test).toml");
    try {
      (void)read_scanner(t);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  refused("[glpet.ring]\nmodules = 12\nradius_mm = 50.0\n", "overlap");  // 32 mm > 2·50·tan 15° = 26.8 mm
  refused("[glpet.ring]\nmodules = 2\n", "glpet.ring.modules");
  refused("[glpet.ring]\nspan = 6\n", "glpet.ring.span");
  refused("[glpet.ring]\ndetectors = [8]\n", "glpet.ring.detectors");
  refused("[glpet.ring]\n[[glpet.modules]]\ncentre = [0.0, 0.0, 0.0]\n", "remove [[glpet.modules]]");
}

// ML-EM on an 8-module ring (12 pairs) from Monte-Carlo data: the NRMSE falls and the hot
// sphere's mean stands above the warm background's.
TEST(GlpetRing, MlemOnASmallRingRecoversTheHotSphere) {
  // Side 2·24·tan 22.5° = 19.9 mm ≥ 4 × 4 mm: the modules do not overlap.
  const SystemModel sys = test::small_ring_system(8, 24, Grid3::centred({10, 10, 4}, {3, 3, 3}), {13, 13, 6});
  ASSERT_EQ(sys.scanner.pairs.size(), 12u);
  Phantom act;  // the water cylinder, warm, with a 4:1 hot sphere
  Shape body;
  body.kind = Shape::Kind::Cylinder;
  body.semi_axes = {13, 13, 6};
  body.value = 1.0;
  Shape hot;
  hot.centre = {6, 3, 0};
  hot.semi_axes = {4, 4, 4};
  hot.value = 3.0;
  act.shapes = {body, hot};
  const VolumeF activity = act.voxelize(sys.grid, 2);

  McOptions mc_opt;
  mc_opt.histories = 1'000'000;
  mc_opt.seed = 5;
  const McResult mc = simulate(sys.scanner, sys.sigma_t, VoxelSource(activity), mc_opt);
  double total = 0;
  for (float a : activity.data) total += a;
  std::vector<float> truth(activity.data.size());
  for (std::size_t v = 0; v < truth.size(); ++v) truth[v] = float(activity.data[v] / total * double(mc.histories));

  CpuProjector op;
  op.configure(sys);
  std::vector<double> err;
  MlemOptions opt;
  opt.iterations = 8;
  opt.on_iteration = [&](int, const BackendBuffer& x) {
    err.push_back(nrmse(download(x), truth));
    return true;
  };
  const MlemResult res = run_mlem(op, mc.counts, {}, opt);
  ASSERT_EQ(err.size(), 8u);
  for (int i = 1; i < 5; ++i) EXPECT_LT(err[i], err[i - 1]) << "iteration " << i + 1;
  EXPECT_LT(err.back(), 0.6 * err.front());
  const auto c = sphere_contrasts(act, sys.grid, res.x, truth);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_GT(c[0].contrast, 2.0) << "true contrast " << c[0].contrast_true;  // 4:1 in the phantom
  EXPECT_GT(c[0].recovery, 0.4);
  std::printf("ring NRMSE %.3f -> %.3f, hot sphere contrast %.2f (true %.2f), recovery %.2f\n", err.front(),
              err.back(), c[0].contrast, c[0].contrast_true, c[0].recovery);
}

}  // namespace
}  // namespace tomo::glpet
