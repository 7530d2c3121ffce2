// glpet's cuda ranks under mpirun (the cluster path), on the two-GPU machine: two
// processes of one GPU each (NCCL unique id over MPI, ncclCommInitRank) reconstruct what one
// process with two GPUs does (ncclCommInitAll), within float rounding, in both modes. Needs an
// mpirun: TOMO_MPIEXEC, else one on PATH (`source tomo-openmpi/env.sh`, tools/mpi-pack.sh).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "compute/core/metrics.hpp"
#include "compute/core/mpi_world.hpp"
#include "compute/glpet/distributed_mlem.hpp"
#include "cuda/core/device.hpp"
#include "tests/glpet/cuda_ranks.hpp"
#include "tests/support/run_command.hpp"

namespace tomo::glpet {
namespace {

using test::Data;
using test::run_on;

// $TOMO_MPIEXEC, else an mpirun on PATH: the build machine's path means nothing on the GPU machine.
std::string find_mpirun() {
  if (std::string m = tomo::test::mpiexec(); !m.empty()) return m;
  std::string path = tomo::test::run_command("command -v mpirun 2>/dev/null").output;
  while (!path.empty() && path.back() == '\n') path.pop_back();
  return path;
}

std::vector<float> read_floats(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::vector<float> v(std::filesystem::exists(p) ? std::filesystem::file_size(p) / sizeof(float) : 0);
  in.read(reinterpret_cast<char*>(v.data()), std::streamsize(v.size() * sizeof(float)));
  return v;
}

TEST(GlpetMpiGpu, TwoProcessesOfOneGpuEqualOneProcessOfTwo) {
  if (!cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  if (launch_environment().size > 1) GTEST_SKIP() << "already under mpirun";
  const int n = cuda::device_count();
  if (n < 2) GTEST_SKIP() << "needs 2 CUDA devices, " << n << " here";
  if (!built_with_mpi()) GTEST_SKIP() << "built without MPI (TOMO_WITH_MPI)";
  const std::string mpirun = find_mpirun();
  if (mpirun.empty()) GTEST_SKIP() << "no mpirun: source tomo-openmpi/env.sh (tools/mpi-pack.sh) or set TOMO_MPIEXEC";
  Data d;
  const DistributedResult exact = run_on("2", MultiMode::exact, d), seed = run_on("2", MultiMode::seed, d);
  const auto dir = std::filesystem::temp_directory_path() / ("tomo-mpi-gpu-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe").string();
  std::string cmd = "TOMO_MPI_TEST_OUT='" + dir.string() + "' ";
  cmd.append(tomo::test::kMpirunEnv);
  cmd.append(mpirun).append(" -np 2 ").append(exe).append(" --gtest_color=no --gtest_filter=GlpetMpiGpuChild.* 2>&1");
  const tomo::test::CommandResult r = tomo::test::run_command(cmd);
  const std::string& output = r.output;
  EXPECT_EQ(r.status, 0) << output;
  const std::vector<float> mpi_exact = read_floats(dir / "exact.bin"), mpi_seed = read_floats(dir / "seed.bin");
  std::filesystem::remove_all(dir);
  ASSERT_EQ(mpi_exact.size(), exact.mlem.x.size()) << output;
  ASSERT_EQ(mpi_seed.size(), seed.mlem.x.size()) << output;
  const double e_exact = relative_l2(mpi_exact, exact.mlem.x), e_seed = relative_l2(mpi_seed, seed.mlem.x);
  std::printf("[ mpi-gpu ] 2 processes x 1 GPU vs 1 process x 2 GPUs: exact relative L2 %.3g, seed %.3g\n", e_exact,
              e_seed);
  EXPECT_LT(e_exact, 1e-5);
  EXPECT_LT(e_seed, 1e-5);
}

// Run by the test above, one copy per process: rank 0 writes both images.
TEST(GlpetMpiGpuChild, OneGpuPerProcess) {
  const char* out = std::getenv("TOMO_MPI_TEST_OUT");
  if (launch_environment().size < 2 || !out) GTEST_SKIP() << "runs under mpirun (GlpetMpiGpu.* start it)";
  start_processes();
  Data d;
  const DistributedResult exact = run_on("1", MultiMode::exact, d), seed = run_on("1", MultiMode::seed, d);
  EXPECT_EQ(exact.mlem.x.size(), d.sys.voxel_count());
  EXPECT_NEAR(seed.alpha.at(0) + seed.alpha.at(1), 1.0, 1e-12);
  if (process_rank() != 0) return;
  for (const auto& [name, x] : {std::pair{"exact.bin", &exact.mlem.x}, std::pair{"seed.bin", &seed.mlem.x}}) {
    std::ofstream f(std::filesystem::path(out) / name, std::ios::binary);
    f.write(reinterpret_cast<const char*>(x->data()), std::streamsize(x->size() * sizeof(float)));
  }
}

}  // namespace
}  // namespace tomo::glpet
