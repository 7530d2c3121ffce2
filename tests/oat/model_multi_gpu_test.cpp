// H_int on two GPUs (compute/oat/model_team.hpp: whole rings per device, the partial α summed on
// the host in rank order) equals one GPU within float rounding, and each device's forward keeps
// the quarter-turn symmetry (label gpu; skips with fewer than two CUDA devices).
#include <gtest/gtest.h>

#include <cstdio>

#include "compute/core/metrics.hpp"
#include "compute/oat/model_team.hpp"
#include "cuda/core/device.hpp"
#include "tests/oat/small_geometry.hpp"

namespace tomo::oat::test {

TEST(OatModelMultiGpu, TwoGpusEqualOne) {
  if (tomo::cuda::device_count() < 1) GTEST_SKIP() << "no CUDA device";
  if (tomo::cuda::device_count() < 2) GTEST_SKIP() << "one CUDA device: the two-GPU test needs two";
  const OatGeometry g = small_geometry(16, 1.0, 6, 16, 25.0, 10.0, EirKind::gaussian);
  ModelOptions o;
  o.interpolation = Interpolation::exact;
  const auto x = random_positive(g.grid.count(), 61);
  const auto y = random_positive(g.data_size(), 62);
  auto one = make_model("cuda", "", g, o);
  auto two = make_model("cuda", "2", g, o);
  EXPECT_NE(one->describe().find("quarter-turn symmetric"), std::string::npos) << one->describe();
  const auto devices = model_devices(*two);
  ASSERT_EQ(devices.size(), 3u);  // the team, rank 0, rank 1
  for (std::size_t r = 1; r < devices.size(); ++r)
    EXPECT_NE(devices[r].find("quarter-turn symmetric"), std::string::npos) << devices[r];
  std::vector<double> hx1(y.size()), hx2(y.size()), hty1(x.size()), hty2(x.size());
  one->forward(x, hx1);
  one->adjoint(y, hty1);
  two->forward(x, hx2);
  two->adjoint(y, hty2);
  const double ef = relative_l2(hx2, hx1), ea = relative_l2(hty2, hty1);
  for (const auto& d : devices) std::printf("%s\n", d.c_str());
  std::printf("2 GPUs vs 1: forward %.3g, adjoint %.3g\n", ef, ea);
  EXPECT_LE(ef, 1e-6);
  EXPECT_LE(ea, 1e-6);
}

// "--gpus all" with cuda counts every visible device, so the run's early check of ranks against
// rings sees them all.
TEST(OatModelMultiGpu, AllCountsEveryDevice) {
  if (tomo::cuda::device_count() < 1) GTEST_SKIP() << "no CUDA device";
  EXPECT_EQ(model_rank_count("cuda", "all"), tomo::cuda::device_count());
  EXPECT_EQ(model_rank_count("cuda", "1"), 1);
}

}  // namespace tomo::oat::test
