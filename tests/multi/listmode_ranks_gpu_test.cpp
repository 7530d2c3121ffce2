// strip on two GPUs (label gpu; the two-GPU machine): `--gpus 2` in one process and `mpirun -np 2
// … --gpus 1` equal one GPU within float summation order (float atomics on the device).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cuda/core/device.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/multi/fixtures.hpp"

namespace tomo {
namespace {

using test::slurp;
using test::nifti_floats;
using test::relative_l2;

// The CLI: $TOMORASTER_CLI (the build folder moved to the GPU machine), else this build's.
std::string cli() {
  const char* e = std::getenv("TOMORASTER_CLI");
  return e && *e ? e : TOMO_BINARY;
}

test::CommandResult run_cli(const std::string& args, const std::filesystem::path& cwd) {
  return test::run_command("cd '" + cwd.string() + "' && " + cli() + " --no-progress" + args + " 2>&1");
}

const std::string kStrip =
    " run strip_default.toml --backend cuda --set strip.events=2000000 --set strip.iterations=5"
    " --set strip.save_iterations=[5]";

TEST(StripRanksGpu, TwoGpusEqualOneWithinFloatOrder) {
  if (cuda::device_count() < 2) GTEST_SKIP() << "fewer than 2 CUDA devices";
  test::TempDir t;
  for (const std::string algo : {"mlem", "osem", "map"}) {
    // OSEM: every subset's events resident on each rank; MAP-RDP: each rank's prior on its device.
    const std::string set = algo == "osem"  ? " --set strip.algorithm='\"osem\"' --set strip.subsets=4"
                            : algo == "map" ? " --set strip.algorithm='\"map-rdp\"' --set strip.subsets=2"
                                              " --set strip.prior.beta=0.5"
                                            : "";
    const auto one = run_cli(kStrip + set + " -o one-" + algo, t.dir);
    ASSERT_EQ(one.status, 0) << one.output;
    const auto two = run_cli(kStrip + set + " --gpus 2 -o two-" + algo, t.dir);
    ASSERT_EQ(two.status, 0) << two.output;
    const double d = relative_l2(nifti_floats(t.dir / ("two-" + algo) / "rho.nii"),
                                 nifti_floats(t.dir / ("one-" + algo) / "rho.nii"));
    EXPECT_LT(d, 1e-4) << algo;
    const auto r1 = nlohmann::json::parse(slurp(t.dir / ("one-" + algo) / "report.json"));
    const auto r2 = nlohmann::json::parse(slurp(t.dir / ("two-" + algo) / "report.json"));
    std::printf("strip %s: rel L2 2 GPUs vs 1 = %.3g; iterations stage %.1f ms (1 GPU) vs %.1f ms (2 GPUs)\n",
                algo.c_str(), d, r1["stages"]["ms"]["iterations"].get<double>(),
                r2["stages"]["ms"]["iterations"].get<double>());
  }
  if (test::mpiexec().empty()) return;
  std::string cmd = "cd '" + t.dir.string() + "' && ";
  cmd.append(test::kMpirunEnv).append(test::mpiexec()).append(" --bind-to none -np 2 ").append(cli());
  cmd.append(" --no-progress").append(kStrip).append(" --gpus 1 -o mpi 2>&1");
  const auto mpi = test::run_command(cmd);
  ASSERT_EQ(mpi.status, 0) << mpi.output;
  const double d = relative_l2(nifti_floats(t.dir / "mpi" / "rho.nii"), nifti_floats(t.dir / "two-mlem" / "rho.nii"));
  EXPECT_LT(d, 1e-5);
  std::printf("strip: rel L2 mpirun -np 2 vs --gpus 2 = %.3g\n", d);
}

TEST(FdkSlabsGpu, TwoGpusEqualOne) {
  if (cuda::device_count() < 2) GTEST_SKIP() << "fewer than 2 CUDA devices";
  test::TempDir t;
  const std::string fdk = " run fdk_default.toml --backend cuda --set fdk.L=256";
  const auto one = run_cli(fdk + " -o one", t.dir);
  ASSERT_EQ(one.status, 0) << one.output;
  const auto two = run_cli(fdk + " --gpus 2 -o two", t.dir);
  ASSERT_EQ(two.status, 0) << two.output;
  const double d = relative_l2(nifti_floats(t.dir / "two" / "fdk_volume.nii"), nifti_floats(t.dir / "one" / "fdk_volume.nii"));
  EXPECT_LT(d, 1e-5);
  const auto r1 = nlohmann::json::parse(slurp(t.dir / "one" / "report.json"));
  const auto r2 = nlohmann::json::parse(slurp(t.dir / "two" / "report.json"));
  std::printf("fdk 256^3: rel L2 2 GPUs vs 1 = %.3g; backproject %.1f ms (1 GPU) vs %.1f ms (2 GPUs, rank 0)\n", d,
              r1["metrics"]["backproject_ms"].get<double>(), r2["metrics"]["backproject_ms"].get<double>());
}

}  // namespace
}  // namespace tomo
