// oat's PLS with H_int on several ranks (compute/oat/model_team.hpp): `--backend cpu --gpus 2`
// (two host ranks of whole rings) gives the PLS image of one cpu model to 1e-10, and report.json
// lists every rank; more ranks than rings is bad input, refused before any output.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/apps/cli_run.hpp"
#include "tests/multi/fixtures.hpp"

namespace tomo {
namespace {

using test::nifti_floats;
using test::slurp;

// 6 rings of 12 views: 3 whole rings per rank.
const std::string kOatPls =
    " run oat_default.toml --backend cpu --set oat.grid=[14,12,17] --set oat.voxel_mm=1.0 --set oat.rings=6"
    " --set oat.views=12 --set 'oat.algorithms=[\"pls\"]' --set oat.pls.iterations=6";

TEST(OatPlsRanks, TwoCpuRanksEqualOne) {
  test::TempDir t;
  const auto one = test::run_cli(kOatPls + " -o one", t.dir);
  ASSERT_EQ(one.status, 0) << one.output;
  const auto two = test::run_cli(kOatPls + " --gpus 2 -o two", t.dir);
  ASSERT_EQ(two.status, 0) << two.output;
  const auto a = nifti_floats(t.dir / "one" / "pls.nii"), b = nifti_floats(t.dir / "two" / "pls.nii");
  ASSERT_EQ(a.size(), 14u * 12 * 17);
  const double e = test::relative_l2(b, a);
  std::printf("PLS image, 2 cpu ranks vs 1: relative L2 %.3g\n", e);
  EXPECT_LE(e, 1e-10);
  const auto r1 = nlohmann::json::parse(slurp(t.dir / "one" / "report.json"));
  const auto r2 = nlohmann::json::parse(slurp(t.dir / "two" / "report.json"));
  // The image in double, through its error against the phantom.
  const double e1 = r1["metrics"]["rmse_pls"].get<double>(), e2 = r2["metrics"]["rmse_pls"].get<double>();
  EXPECT_GT(e1, 0.0);
  EXPECT_LE(std::abs(e2 - e1), 1e-10 * e1);
  const std::string devices = r2["devices"].dump();
  EXPECT_NE(devices.find("H_int over 2 transducer ranges on 2 host threads"), std::string::npos) << devices;
  EXPECT_NE(devices.find("rank 0 (transducers 0..35)"), std::string::npos) << devices;
  EXPECT_NE(devices.find("rank 1 (transducers 36..71)"), std::string::npos) << devices;
}

TEST(OatPlsRanks, MoreRanksThanRingsIsRefusedBeforeAnyOutput) {
  test::TempDir t;
  const auto p = test::run_cli(kOatPls + " --gpus 7 -o x", t.dir);
  EXPECT_EQ(p.status, 2) << p.output;
  EXPECT_NE(p.output.find("--gpus: 7 ranks for 6 rings: PLS with H_int gives each rank whole rings"), std::string::npos)
      << p.output;
  EXPECT_FALSE(std::filesystem::exists(t.dir / "x"));
}

}  // namespace
}  // namespace tomo
