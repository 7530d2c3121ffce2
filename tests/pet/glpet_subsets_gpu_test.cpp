// glpet's subsets of module pairs on the cuda backend (label gpu; skips without a CUDA device):
// the subset update runs on the device (voxels a subset's pairs do not see keep their value) and
// gives the cpu's host update's image, for OSEM and for MAP-RDP (which reads and sets the image
// between the steps).
#include <gtest/gtest.h>

#include <cstdio>

#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/glpet/mlem.hpp"
#include "compute/glpet/monte_carlo.hpp"
#include "compute/pet/prior.hpp"
#include "cuda/core/device.hpp"
#include "tests/glpet/small_system.hpp"

namespace tomo::glpet {
namespace {

struct RingCase {
  SystemModel sys;
  std::vector<float> counts;
  RingCase() {
    sys = test::small_ring_system(12, 30.0, Grid3::centred({14, 14, 4}, {2.5, 2.5, 2.5}), {12.0, 12.0, 20.0});
    Phantom act;
    Shape warm;
    warm.kind = Shape::Kind::Cylinder;
    warm.semi_axes = {12.0, 12.0, 20.0};
    warm.value = 1.0;
    act.shapes = {warm};
    McOptions mc;
    mc.histories = 500'000;
    mc.seed = 4;
    counts = simulate(sys.scanner, sys.sigma_t, VoxelSource(act.voxelize(sys.grid, 2)), mc).counts;
  }
};

std::vector<double> run(const RingCase& c, const std::string& backend, const pet::ReconOptions& recon) {
  auto op = BackendRegistry<Projector>::instance().create(backend);
  op->configure(c.sys);
  MlemOptions opt;
  opt.iterations = 2;
  opt.recon = recon;
  opt.prior_backend = pet::prior_backend_for(backend);
  opt.system = &c.sys;
  opt.make_projector = [&](const SystemModel& m) {
    auto p = BackendRegistry<Projector>::instance().create(backend);
    p->configure(m);
    return p;
  };
  const auto x = run_mlem(*op, c.counts, {}, opt).x;
  return {x.begin(), x.end()};
}

TEST(GlpetPairSubsetsCuda, DeviceSubsetUpdateMatchesTheCpu) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const RingCase c;
  for (const pet::ReconOptions& o :
       {pet::ReconOptions{.algorithm = pet::Algorithm::osem, .subsets = 8},
        pet::ReconOptions{.algorithm = pet::Algorithm::map_rdp, .subsets = 8,
                          .prior = {.beta = 0.03, .gamma = 4.0, .epsilon = 1e-9}}}) {
    const auto cpu = run(c, "cpu", o), cuda = run(c, "cuda", o);
    const double e = relative_l2(cuda, cpu);
    std::printf("glpet %s, 8 pair subsets x 2: cuda vs cpu %.2e\n", pet::algorithm_title(o.algorithm), e);
    EXPECT_LT(e, 1e-4) << pet::algorithm_title(o.algorithm);
  }
}

}  // namespace
}  // namespace tomo::glpet
