// H_sph on two GPUs (NCCL all-reduce of the partial ũ and α) equals one GPU within float
// rounding (label gpu; skips with fewer than two CUDA devices).
#include <gtest/gtest.h>

#include <cstdio>

#include "compute/core/metrics.hpp"
#include "compute/oat/sph_run.hpp"
#include "cuda/core/device.hpp"
#include "tests/oat/sph_fixtures.hpp"

namespace tomo::oat::test {

TEST(OatSphMultiGpu, TwoGpusEqualOne) {
  if (tomo::cuda::device_count() < 1) GTEST_SKIP() << "no CUDA device";
  if (tomo::cuda::device_count() < 2) GTEST_SKIP() << "one CUDA device: the two-GPU test needs two";
  const OatGeometry g = small_geometry(16, 1.0, 4, 8, 25.0, 10.0);
  for (const SphOptions& o : sph_contract_options(g)) {
    const auto x = random_positive(g.grid.count(), 41);
    const auto yr = random_positive(2 * o.setup.data_size(g), 42);
    std::vector<std::complex<double>> y(o.setup.data_size(g));
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = {yr[2 * i] - 1.0, yr[2 * i + 1] - 1.0};
    auto one = make_sph_model("cuda", "", g, o);
    auto two = make_sph_model("cuda", "2", g, o);
    std::vector<std::complex<double>> hx1(y.size()), hx2(y.size());
    std::vector<double> hty1(x.size()), hty2(x.size());
    one->forward(x, hx1);
    one->adjoint(y, hty1);
    two->forward(x, hx2);
    two->adjoint(y, hty2);
    const double ef = rel_l2(hx2, hx1), ea = relative_l2(hty2, hty1);
    std::printf("%s, %d face point(s): 2 GPUs vs 1: forward %.3g, adjoint %.3g\n", two->describe().c_str(),
                o.setup.face_points(), ef, ea);
    EXPECT_LE(ef, 1e-5);
    EXPECT_LE(ea, 1e-5);
  }
}

}  // namespace tomo::oat::test
