// oat's FBP on several ranks (docs/multigpu.md, "oat"): z-slabs of the voxels per rank. cpu
// ranks: three threads equal one rank within the rounding of the slab origin; PLS with H_int on
// a backend without ranks (gl-compute) and an FBP backend without ranks are refused with one line
// and no output.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compute/oat/fbp_slabs.hpp"
#include "tests/apps/cli_run.hpp"
#include "tests/multi/fixtures.hpp"

namespace tomo {
namespace {

using test::nifti_floats;
using test::slurp;

// 17 planes over 3 ranks: slabs of 5, 6 and 6.
const std::string kOat =
    " run oat_default.toml --backend cpu --set oat.grid=[14,12,17] --set oat.voxel_mm=1.0 --set oat.rings=6"
    " --set oat.views=12 --set 'oat.algorithms=[\"fbp\"]'";

TEST(OatFbpSlabs, SlabsCoverThePlanesOnce) {
  for (const int ranks : {1, 2, 3, 5, 20}) {
    int next = 0;
    for (int r = 0; r < ranks; ++r) {
      const oat::ZSlab s = oat::z_slab(17, r, ranks);
      EXPECT_EQ(s.z0, next);
      EXPECT_GE(s.nz, 17 / ranks);
      EXPECT_LE(s.nz, 17 / ranks + 1);
      next = s.z0 + s.nz;
    }
    EXPECT_EQ(next, 17);
  }
  oat::OatGeometry g;
  g.grid = Grid3::centred({4, 4, 10}, {0.5, 0.5, 0.5});
  const oat::OatGeometry s = oat::slab_geometry(g, {3, 4});
  EXPECT_EQ(s.grid.dims[2], 4);
  EXPECT_DOUBLE_EQ(s.grid.centre(0, 0, 0)[2], g.grid.centre(0, 0, 3)[2]);
  EXPECT_DOUBLE_EQ(s.support_mm(), g.support_mm());  // the whole grid's ball, not the slab's
}

TEST(OatFbpSlabs, ThreeCpuRanksEqualOne) {
  test::TempDir t;
  const auto one = test::run_cli(kOat + " -o one", t.dir);
  ASSERT_EQ(one.status, 0) << one.output;
  const auto three = test::run_cli(kOat + " --gpus 3 -o three", t.dir);
  ASSERT_EQ(three.status, 0) << three.output;
  const auto a = nifti_floats(t.dir / "one" / "fbp.nii"), b = nifti_floats(t.dir / "three" / "fbp.nii");
  ASSERT_EQ(a.size(), 14u * 12 * 17);
  ASSERT_EQ(b.size(), a.size());
  double d = 0, n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d += double(a[i] - b[i]) * (a[i] - b[i]), n += double(a[i]) * a[i];
  EXPECT_GT(n, 0.0);
  EXPECT_LT(std::sqrt(d / n), 1e-6);
  const auto r = nlohmann::json::parse(slurp(t.dir / "three" / "report.json"));
  EXPECT_NE(r.dump().find("FBP in 3 z-slabs on 3 host threads"), std::string::npos) << r["devices"];
}

TEST(OatFbpSlabs, PlsWithHIntOnGlAndGlFbpAreRefused) {
  test::TempDir t;
  std::string pls = kOat + " --gpus 2 -o x";
  pls.replace(pls.find("[\"fbp\"]"), 7, "[\"fbp\", \"pls\"]");
  pls.replace(pls.find("--backend cpu"), 13, "--backend gl-compute");
  const auto p = test::run_cli(pls, t.dir);
  EXPECT_EQ(p.status, 2) << p.output;
  EXPECT_NE(p.output.find("--gpus: oat's PLS with H_int runs on several devices with the cpu and cuda backends; "
                          "'gl-compute' runs it on one"),
            std::string::npos)
      << p.output;
  EXPECT_FALSE(std::filesystem::exists(t.dir / "x"));
  std::string gl = kOat + " --gpus 2 -o y";
  gl.replace(gl.find("--backend cpu"), 13, "--backend gl-compute");
  const auto g = test::run_cli(gl, t.dir);
  EXPECT_EQ(g.status, 3) << g.output;
  EXPECT_NE(g.output.find("--gpus: the oat FBP backend 'gl-compute' runs on one device"), std::string::npos) << g.output;
  EXPECT_FALSE(std::filesystem::exists(t.dir / "y"));
}

}  // namespace
}  // namespace tomo
