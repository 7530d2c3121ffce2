// glpet ML-EM on several GPUs: `exact` (LOR and voxel splits) on every GPU here equals one GPU within float
// rounding, `seed`'s α sum to one, and asking for more GPUs than exist is InputError (exit 2).
// Skips without a CUDA device; the two-GPU cases skip with one device (run on the x2 machine).
#include <gtest/gtest.h>

#include <numeric>

#include "compute/core/error.hpp"
#include "compute/core/metrics.hpp"
#include "compute/core/phantom.hpp"
#include "compute/core/registry.hpp"
#include "compute/glpet/distributed_mlem.hpp"
#include "compute/glpet/monte_carlo.hpp"
#include "cuda/core/device.hpp"
#include "cuda/multi/nccl_team.hpp"
#include "tests/glpet/cuda_ranks.hpp"

namespace tomo::glpet {
namespace {

using test::Data;
using test::run_on;

TEST(GlpetMultiGpu, ExactOnAllGpusEqualsOneGpu) {
  if (!cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const int n = cuda::device_count();
  if (n < 2) GTEST_SKIP() << "needs 2 CUDA devices, " << n << " here";
  Data d;
  const auto one = run_on("1", MultiMode::exact, d);
  for (MultiSplit split : {MultiSplit::lors, MultiSplit::voxels}) {
    const auto many = run_on("all", MultiMode::exact, d, split);
    const double err = relative_l2(many.mlem.x, one.mlem.x), est = relative_l2(many.mlem.estimate, one.mlem.estimate);
    std::printf("[ multi-gpu ] exact on %d GPUs vs 1, %s split: image relative L2 %.3g, estimate %.3g\n", n,
                split == MultiSplit::lors ? "LOR" : "voxel", err, est);
    EXPECT_EQ(many.split, split);
    EXPECT_LT(err, 1e-5);
    EXPECT_LT(est, 1e-5);
  }
  // One rank is single-device ML-EM itself.
  auto op = BackendRegistry<Projector>::instance().create("cuda");
  op->configure(d.sys);
  MlemOptions o;
  o.iterations = 5;
  EXPECT_LT(relative_l2(one.mlem.x, run_mlem(*op, d.y, {}, o).x), 1e-6);
}

TEST(GlpetMultiGpu, SeedModeAlphaSumsToOne) {
  if (!cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const int n = cuda::device_count();
  if (n < 2) GTEST_SKIP() << "needs 2 CUDA devices, " << n << " here";
  Data d;
  const auto res = run_on("2", MultiMode::seed, d);
  ASSERT_EQ(res.alpha.size(), 2u);
  EXPECT_NEAR(res.alpha[0] + res.alpha[1], 1.0, 1e-12);
  const auto exact = run_on("2", MultiMode::exact, d);
  std::printf("[ multi-gpu ] seed alpha (%.4f, %.4f), seed vs exact relative L2 %.3g, misfit seed %.4g exact %.4g\n",
              res.alpha[0], res.alpha[1], relative_l2(res.mlem.x, exact.mlem.x), res.data_misfit, exact.data_misfit);
}

TEST(GlpetMultiGpu, MoreGpusThanThereAreIsRefused) {
  if (!cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const int n = cuda::device_count();
  EXPECT_THROW(cuda::resolve_gpus(std::to_string(n + 1)), InputError);
  EXPECT_THROW(cuda::resolve_gpus("0,0"), InputError);
  EXPECT_THROW(cuda::resolve_gpus("two"), InputError);
  EXPECT_EQ(cuda::resolve_gpus("all").size(), std::size_t(n));
}

}  // namespace
}  // namespace tomo::glpet
