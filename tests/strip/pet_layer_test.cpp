// strip on the reconstruction layer (compute/pet/, docs/pet.md), cpu and gl-compute, on
// Monte-Carlo data of a warm disc with a hot disc: OSEM with 8 subsets after 1 iteration is as
// close to the phantom as ML-EM after 8; MAP with the relative difference prior lowers the
// background noise at the hot disc's recovery of ML-EM; one subset is the operator's own loop.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/pet/prior.hpp"
#include "compute/strip/mlem.hpp"
#include "compute/strip/simulator.hpp"
#include "compute/strip/subsets.hpp"
#include "tests/pet/acceptance.hpp"
#include "tests/support/gl_test.hpp"

namespace tomo::strip {
namespace {

constexpr double kRatio = 4.0, kHotZ = 30.0, kHotY = 20.0, kHotR = 24.0, kWarm = 90.0;

struct Case {
  StripGeometry g = StripGeometry::covering(130.0, 300.0, 10.0);  // 26 × 30 pixels
  Resolution res{10.0, 40.0};
  StripPhantom phantom;
  std::vector<Event> events;
  std::vector<double> s, truth;
  pet::test::Regions regions;
  Case() {
    phantom.rows = {{kHotZ, kHotY, kHotR, kHotR, 0.0, kRatio}, {0.0, 0.0, kWarm, kWarm, 0.0, 1.0}};
    events = simulate_phantom(g, res, phantom, 40000, 77);
    s = sensitivity_image(g);
    truth = phantom.rasterize(g, 4);
    regions.hot.assign(g.pixel_count(), 0);
    regions.background.assign(g.pixel_count(), 0);
    const auto grid = g.grid<double>();
    for (int j = 0; j < g.n_y; ++j)
      for (int k = 0; k < g.n_z; ++k) {
        const double y = grid.y0 + j * grid.py, z = grid.z0 + k * grid.pz;
        const double d = std::hypot(y - kHotY, z - kHotZ);
        regions.hot[g.index(j, k)] = d < kHotR - 8.0;
        regions.background[g.index(j, k)] = std::hypot(y, z) < kWarm - 16.0 && d > kHotR + 16.0;
      }
  }
};

const Case& the_case() {
  static const Case c;
  return c;
}

// `resident`: each subset's events in a projector of their own (what the runs do on one device).
std::vector<double> run(const std::string& backend, const pet::ReconOptions& o, bool resident = false) {
  const Case& c = the_case();
  auto make = [&] {
    auto p = BackendRegistry<ListModeProjector>::instance().create(backend);
    p->configure(c.g, c.res, {});
    return p;
  };
  auto op = make();
  op->set_events(c.events);
  EventSubsets data(*op, c.events, o.subsets, c.g.pixel_count(), {},
                    resident ? std::function<std::unique_ptr<ListModeProjector>()>(make) : nullptr);
  data.set_image(std::vector<double>(c.g.pixel_count(), 1.0));
  std::unique_ptr<pet::PriorOperator> prior;
  if (pet::uses_prior(o.algorithm)) {
    const Grid3 g3 = c.g.grid3();
    prior = pet::make_prior(backend, {g3.dims, g3.voxel_mm}, o.prior, std::vector<double>(c.g.pixel_count(), 1.0));
  }
  pet::reconstruct(data, o, prior.get());
  return rho_from_rho_prime(data.image(), c.s);
}

class StripPetLayer : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() != "cpu") (void)test::gl_context();
  }
};

// With one subset the layer's ML-EM makes the calls of the operator's own loop: the same image up
// to the order of the backends' sums (OpenMP partial images, float atomics).
TEST_P(StripPetLayer, MlemIsTheOperatorsLoop) {
  const Case& c = the_case();
  auto op = BackendRegistry<ListModeProjector>::instance().create(GetParam());
  op->configure(c.g, c.res, {});
  op->set_events(c.events);
  const auto ref = rho_from_rho_prime(run_mlem(*op, c.g.pixel_count(), 3), c.s);
  const auto layer = run(GetParam(), {.algorithm = pet::Algorithm::mlem, .iterations = 3});
  // gl-compute: float atomics in a different order each run (1.01e-6 seen once in ten on llvmpipe).
  EXPECT_LT(relative_l2(layer, ref), GetParam() == "cpu" ? 1e-13 : 3e-6);
}

TEST_P(StripPetLayer, OsemEightSubsetsMatchEightMlemIterations) {
  const Case& c = the_case();
  const auto mlem = run(GetParam(), {.algorithm = pet::Algorithm::mlem, .iterations = 8});
  const auto osem = run(GetParam(), {.algorithm = pet::Algorithm::osem, .iterations = 1, .subsets = 8});
  const double e_mlem = nrmse(mlem, c.truth), e_osem = nrmse(osem, c.truth);
  std::printf("strip %s: NRMSE ML-EM x8 %.4f, OSEM 8 subsets x1 %.4f (%+.1f %%)\n", GetParam().c_str(), e_mlem, e_osem,
              100 * (e_osem / e_mlem - 1));
  EXPECT_LT(std::abs(e_osem / e_mlem - 1), 0.05);
}

// Subsets resident in projectors of their own run the same steps as one projector that gets
// each subset's events when it is visited: the same image (the cpu's sums in the same order;
// gl-compute's float atomics in any order).
TEST_P(StripPetLayer, ResidentSubsetsRunTheSameSteps) {
  const double tol = GetParam() == "cpu" ? 1e-13 : 1e-5;
  for (const pet::ReconOptions& o :
       {pet::ReconOptions{.algorithm = pet::Algorithm::osem, .iterations = 2, .subsets = 4},
        pet::ReconOptions{.algorithm = pet::Algorithm::map_rdp, .iterations = 2, .subsets = 4,
                          .prior = {.beta = 0.08, .gamma = 2.0, .epsilon = 1e-9}}}) {
    const auto uploaded = run(GetParam(), o), resident = run(GetParam(), o, true);
    ASSERT_EQ(uploaded.size(), resident.size());
    EXPECT_LT(relative_l2(resident, uploaded), tol) << pet::algorithm_title(o.algorithm);
    EXPECT_GT(nrmse(resident, the_case().truth), 0.0);
  }
}

TEST_P(StripPetLayer, MapRdpLowersTheNoiseAtTheSameRecovery) {
  const Case& c = the_case();
  const int iterations = 40;
  const auto mlem = run(GetParam(), {.algorithm = pet::Algorithm::mlem, .iterations = iterations});
  const pet::RdpParams prior{.beta = 0.08, .gamma = 2.0, .epsilon = 1e-9};
  const auto map = run(GetParam(), {.algorithm = pet::Algorithm::map_rdp, .iterations = iterations, .prior = prior});
  const double cv_mlem = pet::test::background_cv(mlem, c.regions), cv_map = pet::test::background_cv(map, c.regions);
  const double rc_mlem = pet::test::hot_recovery(mlem, c.regions, kRatio),
               rc_map = pet::test::hot_recovery(map, c.regions, kRatio);
  std::printf("strip %s, %d iterations: background CV ML-EM %.4f, MAP-RDP %.4f (%+.1f %%); hot recovery %.4f, %.4f (%+.1f %%)\n",
              GetParam().c_str(), iterations, cv_mlem, cv_map, 100 * (cv_map / cv_mlem - 1), rc_mlem, rc_map,
              100 * (rc_map / rc_mlem - 1));
  EXPECT_LT(cv_map, 0.7 * cv_mlem);
  // The recovery against the phantom's contrast: ML-EM's own is noisy at 40000 events (1.03 with
  // one draw of the events, 1.00 with another), so MAP-RDP is held to the truth, not to it.
  EXPECT_LT(std::abs(rc_map - 1), 0.05);
}

INSTANTIATE_TEST_SUITE_P(Backends, StripPetLayer, ::testing::Values("cpu", "gl-compute"),
                         [](const auto& info) { return info.param == "cpu" ? std::string("cpu") : "gl_compute"; });

}  // namespace
}  // namespace tomo::strip
