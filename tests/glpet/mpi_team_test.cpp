// The MPI path of the multi-device team, under a real mpirun: MpiTeam.* start
// `mpirun -np 2 <this binary>` on the MpiChild.* cases (which skip unless mpirun started them)
// and check that every process passed, or that a failing rank ended the job with one message.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/mpi_world.hpp"
#include "compute/core/team.hpp"
#include "tests/support/run_command.hpp"

namespace tomo {
namespace {

test::CommandResult mpirun_self(int np, const std::string& filter) {
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe").string();
  std::string cmd = test::kMpirunEnv;
  cmd.append(test::mpiexec()).append(" -np ").append(std::to_string(np)).append(" ").append(exe);
  cmd.append(" --gtest_color=no --gtest_filter=").append(filter).append(" 2>&1");
  return test::run_command(cmd);
}

// Macros, not functions: GTEST_SKIP and ASSERT_* return from the function they are written in.
#define REQUIRE_MPI_LAUNCHER()                                                                     \
  if (!built_with_mpi() || test::mpiexec().empty())                                                \
    GTEST_SKIP() << "built without MPI (TOMO_WITH_MPI off or Open MPI's mpi.h/mpirun not found)"; \
  if (launch_environment().size > 1) GTEST_SKIP() << "already under mpirun"

TEST(MpiTeam, CollectivesAcrossTwoProcesses) {
  REQUIRE_MPI_LAUNCHER();
  const test::CommandResult r = mpirun_self(2, "MpiChild.*");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(test::count_occurrences(r.output, "[  PASSED  ] 4 tests"), 2) << r.output;  // both processes, all four cases
  EXPECT_EQ(test::count_occurrences(r.output, "SKIPPED"), 0) << r.output;
}

TEST(MpiTeam, FailingRankEndsTheJobWithOneMessage) {
  REQUIRE_MPI_LAUNCHER();
  const test::CommandResult r = mpirun_self(2, "MpiFailChild.*");
  EXPECT_EQ(r.status, 5) << r.output;  // the code the failing process gave MPI_Abort
  EXPECT_EQ(test::count_occurrences(r.output, "rank 3 failed on purpose"), 1) << r.output;
  EXPECT_EQ(test::count_occurrences(r.output, "PASSED"), 0) << r.output;  // rank 0's process did not go on
}

// --- run by the tests above, one copy per process ---

#define MPI_CHILD()                                                                                 \
  if (launch_environment().size < 2) GTEST_SKIP() << "runs under mpirun (MpiTeam.* start it)"; \
  start_processes();                                                                              \
  ASSERT_NE(process_group(), nullptr)

TEST(MpiChild, WorldMatchesTheLauncher) {
  MPI_CHILD();
  ProcessGroup& g = *process_group();
  EXPECT_EQ(g.size(), 2);
  EXPECT_EQ(g.rank(), launch_environment().rank);
  EXPECT_EQ(g.node_size(), 2);  // one host
  EXPECT_EQ(g.node_rank(), g.rank());
  // Two processes on one host, --gpus 1 each: devices 0 and 1, as one process with --gpus 2.
  EXPECT_EQ(process_devices("1", 2, "2 devices", &g), std::vector<int>{g.rank()});
  EXPECT_EQ(process_devices("all", 4, "4 devices", &g), (std::vector<int>{2 * g.rank(), 2 * g.rank() + 1}));
  EXPECT_EQ(process_devices("1,0", 2, "2 devices", &g), (std::vector<int>{1, 0}));  // a list as written
  EXPECT_THROW(process_devices("2", 3, "3 devices", &g), InputError);  // 4 of 3, on every process alike
  EXPECT_EQ(process_devices("1", 1, "1 device", &g), std::vector<int>{0});   // each process sees its own GPU
}

TEST(MpiChild, BroadcastCarriesAnOpaqueIdBitForBit) {
  MPI_CHILD();
  ProcessGroup& g = *process_group();
  // An NCCL unique id is 128 opaque bytes made by process 0: every process must get the same.
  std::array<unsigned char, 128> expected{};
  std::mt19937 gen(1234);
  for (auto& b : expected) b = static_cast<unsigned char>(gen());
  std::array<unsigned char, 128> id{};
  if (g.rank() == 0) id = expected;
  g.broadcast(id.data(), id.size(), 0);
  EXPECT_EQ(id, expected);
  std::string mine = "p";  // appended, not "p" + …: GCC 12 warns (-Wrestrict, a false positive)
  mine += std::to_string(g.rank());
  const std::vector<std::string> names = allgather_strings(&g, {mine, "x"});
  EXPECT_EQ(names, (std::vector<std::string>{"p0", "x", "p1", "x"}));
}

// Values whose float sum depends on the order: only the global rank order gives `expected`.
std::vector<float> rank_values(int rank) { return {1e8f * float(rank % 2 ? -1 : 1), 0.1f * float(rank + 1), 3.0f}; }

TEST(MpiChild, HostCollectivesSumInGlobalRankOrder) {
  MPI_CHILD();
  ProcessGroup& g = *process_group();
  HostTeam team(2, &g);  // two threads here: four ranks in all
  ASSERT_EQ(team.size(), 4);
  EXPECT_EQ(team.first_local_rank(), 2 * g.rank());
  std::vector<float> expected(3, 0.0f);
  for (int r = 0; r < 4; ++r)
    for (std::size_t i = 0; i < 3; ++i) expected[i] += rank_values(r)[i];
  // The same sums in one process: what `--gpus 4` computes.
  HostTeam single(4);
  std::vector<std::vector<float>> one(4);
  single.run([&](int r) {
    one[std::size_t(r)] = rank_values(r);
    single.allreduce_sum(r, std::span<float>(one[std::size_t(r)]));
  });
  std::vector<std::vector<float>> got(4), bcast(4);
  std::vector<double> dsum(4);
  team.run([&](int r) {
    got[std::size_t(r)] = rank_values(r);
    team.allreduce_sum(r, std::span<float>(got[std::size_t(r)]));
    double d = 0.25 * r;
    team.allreduce_sum(r, std::span<double>(&d, 1));
    dsum[std::size_t(r)] = d;
    bcast[std::size_t(r)] = r == 3 ? std::vector<float>{7.5f, -2.0f} : std::vector<float>(2, 0.0f);
    team.broadcast(r, std::span<float>(bcast[std::size_t(r)]), 3);  // root in process 1
  });
  for (int r = team.first_local_rank(); r < team.first_local_rank() + 2; ++r) {
    EXPECT_EQ(std::memcmp(got[std::size_t(r)].data(), expected.data(), 3 * sizeof(float)), 0) << "rank " << r;
    EXPECT_EQ(got[std::size_t(r)], one[0]) << "rank " << r << " differs from one process's sum";
    EXPECT_EQ(dsum[std::size_t(r)], 1.5);
    EXPECT_EQ(bcast[std::size_t(r)], (std::vector<float>{7.5f, -2.0f}));
  }
}

TEST(MpiChild, LargeVectorsGoInChunks) {
  MPI_CHILD();
  HostTeam team(1, process_group());
  std::vector<float> v(3'000'000);
  team.run([&](int r) {
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = float(i % 1000) + float(r);
    team.allreduce_sum(r, std::span<float>(v));
  });
  EXPECT_EQ(v[0], 1.0f);
  EXPECT_EQ(v[2'999'999], 2.0f * 999 + 1);
}

TEST(MpiFailChild, RankThrowsInsideACollective) {
  MPI_CHILD();
  HostTeam team(2, process_group());
  try {
    team.run([&](int r) {
      std::vector<float> v(4, 1.0f);
      team.allreduce_sum(r, std::span<float>(v));  // all four meet once
      if (r == 3) throw Error("rank 3 failed on purpose");
      team.allreduce_sum(r, std::span<float>(v));  // ranks 0..2 wait here for rank 3
    });
  } catch (const Error& e) {
    std::fprintf(stderr, "test: failed: %s\n", e.what());
    abort_processes(5);  // what tomoraster's main does
  }
  ADD_FAILURE() << "the job should have ended";
}

}  // namespace
}  // namespace tomo
