// safir on several ranks (docs/multigpu.md, "safir and strip"): the sensitivity's crystal pairs
// and every frame's events dealt to the ranks, images summed after every subset. cpu ranks: three
// threads (--gpus 3) equal one rank within float summation order for ML-EM, OSEM, MAP-RDP and the
// correction terms over time frames; two processes (mpirun) equal one process of two ranks bit
// for bit; what does not compose yet is refused with one line.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "compute/core/registry.hpp"
#include "compute/safir/sensitivity.hpp"
#include "tests/apps/cli_run.hpp"
#include "tests/multi/fixtures.hpp"

namespace tomo {
namespace {

const std::string kScene =
    " run safir_default.toml --set safir.rings=8 --set safir.crystals=48 --set safir.image=[20,20,8]"
    " --set safir.voxel_mm=2.0 --set safir.events=20000 --set safir.iterations=3 --set safir.save_iterations=[2]"
    " --set safir.threads=1";
const std::string kSafir = kScene + " --backend cpu";

// One run on one rank and the same on `ranks` cpu ranks: every image within `tolerance`.
void expect_ranks_equal_one(const std::string& name, const std::string& set, int ranks, const std::filesystem::path& dir,
                            int frames = 1) {
  const auto one = test::run_cli(kSafir + set + " -o one-" + name, dir);
  ASSERT_EQ(one.status, 0) << one.output;
  const auto many = test::run_cli(kSafir + set + " --gpus " + std::to_string(ranks) + " -o many-" + name, dir);
  ASSERT_EQ(many.status, 0) << many.output;
  for (const char* f : {"image.nii", "image_iteration_2.nii", "sensitivity.nii", "significance.nii"}) {
    const auto a = test::nifti_floats(dir / ("one-" + name) / f), b = test::nifti_floats(dir / ("many-" + name) / f);
    EXPECT_LT(test::relative_l2(b, a), 1e-6) << name << " " << f;
    double sum = 0;
    for (float v : a) sum += std::abs(v);
    EXPECT_GT(sum, 0.0) << name << " " << f;
  }
  const auto r1 = test::report_of(dir / ("one-" + name)), rn = test::report_of(dir / ("many-" + name));
  EXPECT_EQ(rn["devices"].size(), std::size_t(ranks)) << rn["devices"];
  EXPECT_EQ(rn["devices"][1], "cpu rank 1");
  ASSERT_EQ(rn["safir_frames"].size(), std::size_t(frames));
  for (int k = 0; k < frames; ++k) {
    EXPECT_EQ(rn["safir_frames"][k]["labels"], r1["safir_frames"][k]["labels"]) << name;  // the ranks' counts summed
    EXPECT_EQ(rn["safir_frames"][k]["events"], r1["safir_frames"][k]["events"]) << name;
  }
  EXPECT_NEAR(rn["metrics"]["correlation_image_phantom"].get<double>(),
              r1["metrics"]["correlation_image_phantom"].get<double>(), 1e-6);
  EXPECT_EQ(rn["metrics"]["fov_masked_voxels"], r1["metrics"]["fov_masked_voxels"]);
  // The ranks' set-up and sensitivity count to their stages, not to the iterations.
  EXPECT_GT(rn["stages"]["ms"]["sensitivity"].get<double>(), 0.0);
  EXPECT_GT(rn["timings_ms"]["upload"]["total_ms"].get<double>(), 0.0);
}

TEST(SafirRanks, ThreeCpuRanksEqualOneForEveryAlgorithm) {
  test::TempDir t;
  expect_ranks_equal_one("mlem", "", 3, t.dir);
  expect_ranks_equal_one("osem", " --set safir.algorithm='\"osem\"' --set safir.subsets=4", 3, t.dir);
  expect_ranks_equal_one("map", " --set safir.algorithm='\"map-rdp\"' --set safir.subsets=2 --set safir.prior.beta=0.5",
                         3, t.dir);
  expect_ranks_equal_one("all-pairs", " --set safir.sensitivity='\"all_pairs\"'", 2, t.dir);
}

// Per-crystal efficiencies as a .npy file of float64 (the format compute/pet reads).
void write_efficiencies(const std::filesystem::path& p, int n) {
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + std::to_string(n) + ",), }";
  header.append(64 - (10 + header.size() + 1) % 64, ' ').push_back('\n');
  std::ofstream out(p, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const std::uint16_t len = std::uint16_t(header.size());
  out.write(reinterpret_cast<const char*>(&len), 2);
  out << header;
  for (int i = 0; i < n; ++i) {
    const double e = 0.8 + 0.4 * double((i * 37) % 17) / 16.0;
    out.write(reinterpret_cast<const char*>(&e), 8);
  }
}

TEST(SafirRanks, CorrectionTermsOverFramesEqualOne) {
  test::TempDir t;
  write_efficiencies(t.dir / "eff.npy", 8 * 48);
  expect_ranks_equal_one("corrections",
                         " --set safir.randoms.fraction=0.1 --set safir.scatter.fraction=0.1"
                         " --set safir.normalisation='\"eff.npy\"' --set safir.frame_s=0.5"
                         " --set safir.algorithm='\"osem\"' --set safir.subsets=3",
                         3, t.dir, 2);
}

TEST(SafirRanks, SensitivitySharesAddUpToTheWhole) {
  const safir::Scanner sc = [] {
    safir::Scanner s;
    s.rings = 4;
    s.crystals = 24;
    s.pitch_mm = 4.0;
    return s;
  }();
  const safir::ImageBox box{.n = {10, 10, 4}, .voxel_mm = 3.0};
  auto op = BackendRegistry<safir::ListModeOperator>::instance().create("cpu");
  op->configure(sc, box, {.threads = 1});
  const auto weight = [](std::uint32_t a, std::uint32_t b) { return 0.5 + 0.01 * double((a + b) % 7); };
  for (const auto mode : {safir::SensitivityMode::symmetric, safir::SensitivityMode::all_pairs}) {
    const auto whole = safir::compute_sensitivity(*op, sc, box, mode, 1000);
    std::vector<double> sum(whole.size(), 0.0);
    for (int r = 0; r < 3; ++r) {
      const auto part = safir::compute_sensitivity(*op, sc, box, mode, 1000, {.rank = r, .ranks = 3});
      for (std::size_t j = 0; j < sum.size(); ++j) sum[j] += part[j];
    }
    double d = 0, n = 0;
    for (std::size_t j = 0; j < sum.size(); ++j) d += (sum[j] - whole[j]) * (sum[j] - whole[j]), n += whole[j] * whole[j];
    EXPECT_GT(n, 0.0);
    EXPECT_LT(std::sqrt(d / n), 1e-12) << int(mode);
  }
  const auto whole = safir::compute_weighted_sensitivity(*op, sc, box, weight, 1000);
  std::vector<double> sum(whole.size(), 0.0);
  for (int r = 0; r < 2; ++r) {
    const auto part = safir::compute_weighted_sensitivity(*op, sc, box, weight, 1000, {.rank = r, .ranks = 2});
    for (std::size_t j = 0; j < sum.size(); ++j) sum[j] += part[j];
  }
  for (std::size_t j = 0; j < sum.size(); ++j) EXPECT_NEAR(sum[j], whole[j], 1e-9 * (1 + whole[j]));
}

TEST(SafirRanks, WhatDoesNotComposeIsRefusedWithOneLine) {
  test::TempDir t;
  const auto halve = test::run_cli(kSafir + " --set safir.halve_events=true --gpus 2 -o x", t.dir);
  EXPECT_EQ(halve.status, 2) << halve.output;
  EXPECT_EQ(halve.output.find("error"), halve.output.rfind("error")) << "one error line: " << halve.output;
  EXPECT_NE(halve.output.find("safir.halve_events runs on one device"), std::string::npos) << halve.output;
  EXPECT_FALSE(std::filesystem::exists(t.dir / "x"));
  const auto gl = test::run_cli(kScene + " --backend gl-compute --gpus 2 -o y", t.dir);
  EXPECT_EQ(gl.status, 3) << gl.output;
  EXPECT_NE(gl.output.find("safir runs as several ranks on the cpu and cuda backends, not on gl-compute"),
            std::string::npos)
      << gl.output;
  EXPECT_FALSE(std::filesystem::exists(t.dir / "y"));
}

TEST(SafirRanks, TwoProcessesEqualOneProcessOfTwoRanksAndSplitTheSimulation) {
  if (test::mpiexec().empty()) GTEST_SKIP() << "built without MPI";
  test::TempDir t;
  // 70000 events are 3 chunks of the simulator (with randoms and scatter, whose counts are summed).
  const std::string set = " --set safir.algorithm='\"osem\"' --set safir.subsets=3 --set safir.events=70000"
                          " --set safir.randoms_fraction=0.1 --set safir.scatter_fraction=0.1";
  const auto one = test::run_cli(kSafir + set + " --gpus 2 -o one", t.dir);
  ASSERT_EQ(one.status, 0) << one.output;
  std::string cmd = "cd '" + t.dir.string() + "' && ";
  cmd.append(test::kMpirunEnv).append(test::mpiexec()).append(" -np 2 ").append(TOMO_BINARY);
  cmd.append(" --no-progress -v").append(kSafir).append(set).append(" --gpus 1 -o two 2>&1");
  const auto two = test::run_command(cmd);
  ASSERT_EQ(two.status, 0) << two.output;
  EXPECT_NE(two.output.find("safir Monte-Carlo: process 0 of 2 runs 2 of 3 chunks"), std::string::npos) << two.output;
  EXPECT_NE(two.output.find("safir Monte-Carlo: process 1 of 2 runs 1 of 3 chunks"), std::string::npos) << two.output;
  for (const char* f : {"image.nii", "image_iteration_2.nii", "sensitivity.nii", "significance.nii"})
    EXPECT_TRUE(test::slurp(t.dir / "one" / f) == test::slurp(t.dir / "two" / f)) << f << " differs";
  const auto r1 = test::report_of(t.dir / "one"), r2 = test::report_of(t.dir / "two");
  EXPECT_EQ(r2["metrics"]["events"], 70000);
  EXPECT_EQ(r2["metrics"]["emissions"], r1["metrics"]["emissions"]);
  EXPECT_EQ(r2["metrics"]["delayed"], r1["metrics"]["delayed"]);
  EXPECT_GT(r2["metrics"]["delayed"].get<double>(), 0.0);
  EXPECT_EQ(r2["devices"].size(), 1u);  // process 0's ranks
}

}  // namespace
}  // namespace tomo
