// fdk on several ranks (docs/multigpu.md, "fdk"): z-slabs per rank. cpu ranks: two threads equal
// one rank within the rounding of the slab origin; two processes equal one process of two ranks
// bit for bit; an iterative algorithm and a gl backend are refused with one line.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compute/fdk/slabs.hpp"
#include "tests/apps/cli_run.hpp"
#include "tests/multi/fixtures.hpp"

namespace tomo {
namespace {

using test::slurp;
using test::nifti_floats;

const std::string kFdk =
    " run fdk_default.toml --backend cpu --set fdk.L=32 --set fdk.geometry.projections=62"
    " --set fdk.geometry.detector_columns=156 --set fdk.geometry.detector_rows=120 --set fdk.geometry.pixel_mm=2.56";

TEST(FdkSlabs, RangesCoverTheSlicesOnce) {
  for (const int ranks : {1, 2, 3, 8}) {
    int next = 0;
    for (int r = 0; r < ranks; ++r) {
      const auto [a, b] = fdk::slab_range(37, r, ranks);
      EXPECT_EQ(a, next);
      EXPECT_GE(b - a, 37 / ranks);
      EXPECT_LE(b - a, 37 / ranks + 1);
      next = b;
    }
    EXPECT_EQ(next, 37);
  }
}

TEST(FdkSlabs, TwoCpuRanksEqualOne) {
  test::TempDir t;
  const auto one = test::run_cli(kFdk + " -o one", t.dir);
  ASSERT_EQ(one.status, 0) << one.output;
  const auto two = test::run_cli(kFdk + " --gpus 2 -o two", t.dir);
  ASSERT_EQ(two.status, 0) << two.output;
  const auto a = nifti_floats(t.dir / "one" / "fdk_volume.nii"), b = nifti_floats(t.dir / "two" / "fdk_volume.nii");
  ASSERT_EQ(a.size(), 32u * 32 * 32);
  ASSERT_EQ(b.size(), a.size());
  double d = 0, n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d += double(a[i] - b[i]) * (a[i] - b[i]), n += double(a[i]) * a[i];
  EXPECT_GT(n, 0.0);
  EXPECT_LT(std::sqrt(d / n), 1e-6);
  const auto r = nlohmann::json::parse(slurp(t.dir / "two" / "report.json"));
  EXPECT_EQ(r["devices"].size(), 3u) << r["devices"];  // the filter, then the two ranks
}

TEST(FdkSlabs, IterativeAndGlAreRefused) {
  test::TempDir t;
  const auto it = test::run_cli(kFdk + " --set fdk.algorithm='\"sirt\"' --gpus 2 -o x", t.dir);
  EXPECT_EQ(it.status, 3) << it.output;
  EXPECT_NE(it.output.find("fdk runs z-slabs on several ranks for fdk.algorithm = \"fdk\"; sirt runs on one device"),
            std::string::npos)
      << it.output;
  EXPECT_FALSE(std::filesystem::exists(t.dir / "x"));
  std::string gl_args = kFdk + " --gpus 2 -o y";
  gl_args.replace(gl_args.find("--backend cpu"), 13, "--backend gl");
  const auto gl = test::run_cli(gl_args, t.dir);
  EXPECT_EQ(gl.status, 3) << gl.output;
  EXPECT_NE(gl.output.find("fdk runs as several ranks on the cpu and cuda backends, not on gl"), std::string::npos)
      << gl.output;
  EXPECT_FALSE(std::filesystem::exists(t.dir / "y"));
}

TEST(FdkSlabs, TwoProcessesEqualOneProcessOfTwoRanksBitForBit) {
  if (test::mpiexec().empty()) GTEST_SKIP() << "built without MPI";
  test::TempDir t;
  const auto one = test::run_cli(kFdk + " --gpus 2 -o one", t.dir);
  ASSERT_EQ(one.status, 0) << one.output;
  std::string cmd = "cd '" + t.dir.string() + "' && ";
  cmd.append(test::kMpirunEnv).append(test::mpiexec()).append(" -np 2 ").append(TOMO_BINARY);
  cmd.append(" --no-progress").append(kFdk).append(" --gpus 1 -o two 2>&1");
  const auto two = test::run_command(cmd);
  ASSERT_EQ(two.status, 0) << two.output;
  EXPECT_TRUE(slurp(t.dir / "one" / "fdk_volume.nii") == slurp(t.dir / "two" / "fdk_volume.nii"));
}

}  // namespace
}  // namespace tomo
