// A scene's data path end to end: simulated data written as .npy and read back through
// oat.data.source = "npy" give the same geometry and the same FBP; scene errors name their key.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "compute/core/error.hpp"
#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/scene.hpp"
#include "compute/oat/acquisition.hpp"
#include "compute/oat/data_io.hpp"
#include "compute/oat/model.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::oat::test {

const char* kScene = R"(problem = "oat"
[oat]
radius_mm = 20.0
rings = 4
views = 8
fs_mhz = 8.0
grid = [10, 10, 10]
voxel_mm = 1.0
[[oat.phantom]]
centre_mm = [1.0, 0.0, -1.0]
radius_mm = 2.5
value = 1.0
sigma_mm = 0.5
)";

std::vector<double> fbp_of(const Acquisition& a) {
  auto op = BackendRegistry<Fbp>::instance().create("cpu");
  op->configure(a.geometry, FbpOptions{});
  std::vector<double> img(a.geometry.grid.count());
  op->reconstruct(a.data, img);
  return img;
}

TEST(OatAcquisition, NpyDataReadBackGiveTheSameFbp) {
  tomo::test::TempDir t;
  const Scene sim = Scene::load_string(kScene, "sim");
  const Acquisition a = acquire(OatConfig::from_scene(sim));
  ASSERT_TRUE(a.simulated);
  write_npy_data(t.dir / "u.npy", t.dir / "r.npy", a.geometry, a.data);

  Scene rd = Scene::load_string(kScene, "read");
  rd.apply_override("oat.data.source=\"npy\"");
  rd.apply_override("oat.data.pressure=\"" + (t.dir / "u.npy").string() + "\"");
  rd.apply_override("oat.data.positions=\"" + (t.dir / "r.npy").string() + "\"");
  rd.apply_override("oat.t_min_us=" + std::to_string(a.geometry.time.t_min_us));
  const Acquisition b = acquire(OatConfig::from_scene(rd));
  EXPECT_FALSE(b.simulated);
  EXPECT_EQ(b.geometry.time.samples, a.geometry.time.samples);
  EXPECT_NEAR(b.geometry.time.t_min_us, a.geometry.time.t_min_us, 1e-9);
  EXPECT_NEAR(b.geometry.radius_mm, 20.0, 1e-9);
  ASSERT_EQ(b.data.size(), a.data.size());
  for (std::size_t n = 0; n < a.data.size(); ++n) ASSERT_NEAR(b.data[n], a.data[n], 1e-6 * std::abs(a.data[n]) + 1e-30);
  for (std::size_t q = 0; q < a.geometry.transducers.size(); ++q)
    for (int k = 0; k < 3; ++k) ASSERT_DOUBLE_EQ(b.geometry.transducers[q][k], a.geometry.transducers[q][k]);
  // Read positions get their Voronoi areas instead of Rs² sinθ ΔθΔφ: close, not equal.
  const auto fa = fbp_of(a), fb = fbp_of(b);
  EXPECT_GT(correlation(fa, fb), 0.99);
  EXPECT_LT(relative_l2(fb, fa), 0.1);
}

TEST(OatAcquisition, SceneErrorsNameTheirKey) {
  Scene s = Scene::load_string(kScene, "bad");
  s.apply_override("oat.data.source=\"npy\"");
  try {
    (void)OatConfig::from_scene(s);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("oat.data.pressure"), std::string::npos) << e.what();
  }
  Scene g = Scene::load_string(kScene, "bad");
  g.apply_override("oat.grid=[0, 4, 4]");
  EXPECT_THROW((void)OatConfig::from_scene(g), InputError);
}

// oat.model.reproducible: off unless set; a value that is not a boolean names the key.
TEST(OatAcquisition, ReproducibleKey) {
  EXPECT_FALSE(OatConfig::from_scene(Scene::load_string(kScene, "default")).model.reproducible);
  Scene on = Scene::load_string(kScene, "on");
  on.apply_override("oat.model.reproducible=true");
  EXPECT_TRUE(OatConfig::from_scene(on).model.reproducible);
  Scene bad = Scene::load_string(kScene, "bad");
  bad.apply_override("oat.model.reproducible=\"yes\"");
  try {
    (void)OatConfig::from_scene(bad);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("oat.model.reproducible"), std::string::npos) << e.what();
  }
}

}  // namespace tomo::oat::test
