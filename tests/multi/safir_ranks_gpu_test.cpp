// safir on two GPUs (label gpu; the two-GPU machine): `--gpus 2` in one process and `mpirun -np 2
// … --gpus 1` equal one GPU within float summation order (float atomics on the device), for
// ML-EM, OSEM with the correction terms and MAP-RDP.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "cuda/core/device.hpp"
#include "tests/multi/fixtures.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo {
namespace {

// The CLI: $TOMORASTER_CLI (the build folder moved to the GPU machine), else this build's.
std::string cli() {
  const char* e = std::getenv("TOMORASTER_CLI");
  return e && *e ? e : TOMO_BINARY;
}

test::CommandResult run_cli(const std::string& args, const std::filesystem::path& cwd) {
  return test::run_command("cd '" + cwd.string() + "' && " + cli() + " --no-progress" + args + " 2>&1");
}

const std::string kSafir =
    " run safir_default.toml --backend cuda --set safir.events=1000000 --set safir.iterations=5"
    " --set safir.save_iterations=[3]";

TEST(SafirRanksGpu, TwoGpusEqualOneWithinFloatOrder) {
  if (cuda::device_count() < 2) GTEST_SKIP() << "fewer than 2 CUDA devices";
  test::TempDir t;
  for (const std::string algo : {"mlem", "osem", "map"}) {
    // OSEM with the correction terms; MAP-RDP with each rank's prior on its own device (BSREM's
    // default preconditioner carries a float-order difference along as EM does: MapFloatOrder).
    const std::string set = algo == "osem" ? " --set safir.algorithm='\"osem\"' --set safir.subsets=4"
                                             " --set safir.randoms.fraction=0.05 --set safir.scatter.fraction=0.05"
                            : algo == "map" ? " --set safir.algorithm='\"map-rdp\"' --set safir.subsets=2"
                                              " --set safir.prior.beta=0.5"
                                            : "";
    const auto one = run_cli(kSafir + set + " -o one-" + algo, t.dir);
    ASSERT_EQ(one.status, 0) << one.output;
    const auto two = run_cli(kSafir + set + " --gpus 2 -o two-" + algo, t.dir);
    ASSERT_EQ(two.status, 0) << two.output;
    for (const char* f : {"image.nii", "image_iteration_3.nii", "sensitivity.nii"}) {
      const double d = test::relative_l2(test::nifti_floats(t.dir / ("two-" + algo) / f),
                                         test::nifti_floats(t.dir / ("one-" + algo) / f));
      EXPECT_LT(d, 1e-4) << algo << " " << f;
      std::printf("safir %s %s: rel L2 2 GPUs vs 1 = %.3g\n", algo.c_str(), f, d);
    }
    const auto r1 = test::report_of(t.dir / ("one-" + algo)), r2 = test::report_of(t.dir / ("two-" + algo));
    EXPECT_EQ(r2["devices"].size(), 2u) << r2["devices"];
    EXPECT_EQ(r2["safir_frames"][0]["labels"], r1["safir_frames"][0]["labels"]);
    std::printf("safir %s: reconstruction %.1f ms (1 GPU) vs %.1f ms (2 GPUs); sensitivity %.1f vs %.1f ms\n",
                algo.c_str(), r1["metrics"]["reconstruction_ms"].get<double>(),
                r2["metrics"]["reconstruction_ms"].get<double>(), r1["stages"]["ms"]["sensitivity"].get<double>(),
                r2["stages"]["ms"]["sensitivity"].get<double>());
  }
  if (test::mpiexec().empty()) return;
  std::string cmd = "cd '" + t.dir.string() + "' && ";
  cmd.append(test::kMpirunEnv).append(test::mpiexec()).append(" --bind-to none -np 2 ").append(cli());
  cmd.append(" --no-progress").append(kSafir).append(" --gpus 1 -o mpi 2>&1");
  const auto mpi = test::run_command(cmd);
  ASSERT_EQ(mpi.status, 0) << mpi.output;
  const double d = test::relative_l2(test::nifti_floats(t.dir / "mpi" / "image.nii"),
                                     test::nifti_floats(t.dir / "two-mlem" / "image.nii"));
  EXPECT_LT(d, 1e-4);
  std::printf("safir: rel L2 mpirun -np 2 vs --gpus 2 = %.3g\n", d);
}

}  // namespace
}  // namespace tomo
