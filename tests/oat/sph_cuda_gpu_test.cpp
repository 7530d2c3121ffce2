// H_sph on cuda in use (label gpu; skips without a CUDA device): PLS-sph through the cuda backend
// follows the cpu one (10 CG iterations on analytic data, image rel. L2 ≤ 1e-2), and a one-GPU
// team (--gpus 1: no NCCL) gives the plain backend's results.
#include <gtest/gtest.h>

#include <cstdio>

#include "compute/core/metrics.hpp"
#include "compute/oat/phantom.hpp"
#include "compute/oat/pls.hpp"
#include "compute/oat/sph_run.hpp"
#include "cuda/core/device.hpp"
#include "tests/oat/sph_fixtures.hpp"

namespace tomo::oat::test {

TEST(OatSphCuda, PlsSphFollowsCpu) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const OatGeometry g = small_geometry(16, 1.0, 4, 8, 25.0, 10.0);
  OatPhantom ph;
  ph.spheres = {{{1.5, -1.0, 0.5}, 3.0, 1.0, 0.7}, {{-3.0, 2.5, -1.5}, 1.8, 1.5, 0.6}};
  SphOptions o;
  o.setup = SphSetup::resolve(g, SphSetup{}, 0);
  const auto data = frequency_data(g, o.setup, simulate_pressure(g, ph, Noise{}));
  PlsOptions po;
  po.iterations = 10;
  std::vector<std::vector<double>> images;
  for (const char* name : {"cpu", "cuda"}) {
    auto m = make_sph_model(name, "", g, o);
    SphAsModel real(*m);
    images.push_back(run_pls(real, g.grid, as_real(std::span<const std::complex<double>>(data)), po));
  }
  const double e = relative_l2(images[1], images[0]);
  std::printf("PLS-sph, 10 iterations, cuda vs cpu image: rel. L2 %.3g\n", e);
  EXPECT_LE(e, 1e-2);  // float operators inside a double CG: a loose bound; the measured drift is printed
}

TEST(OatSphCuda, OneGpuTeamEqualsThePlainBackend) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const OatGeometry g = small_geometry(10, 1.0, 3, 6, 20.0, 5.0);
  const SphOptions o = sph_contract_options(g)[0];
  const auto x = random_positive(g.grid.count(), 51);
  std::vector<std::complex<double>> y(o.setup.data_size(g), {0.3, -0.7});
  const SphOutputs plain = run_sph("cuda", g, o, x, y);
  auto team = make_sph_model("cuda", "1", g, o);
  std::vector<std::complex<double>> hx(y.size());
  std::vector<double> hty(x.size());
  team->forward(x, hx);
  team->adjoint(y, hty);
  EXPECT_LE(rel_l2(hx, plain.hx), 1e-6);
  EXPECT_LE(relative_l2(hty, plain.hty), 1e-6);
}

}  // namespace tomo::oat::test
