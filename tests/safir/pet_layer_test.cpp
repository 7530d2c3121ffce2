// safir on the reconstruction layer (compute/pet/, docs/pet.md), cpu and gl-compute, on
// Monte-Carlo data of a warm cylinder with a hot sphere: OSEM with 8 subsets after 1 iteration
// is as close to the phantom as ML-EM after 8; MAP with the relative difference prior lowers the
// background noise at the hot sphere's recovery of ML-EM; the subsets partition the events.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/pet/prior.hpp"
#include "compute/safir/mlem.hpp"
#include "compute/safir/sensitivity.hpp"
#include "compute/safir/simulator.hpp"
#include "compute/safir/subsets.hpp"
#include "tests/pet/acceptance.hpp"
#include "tests/support/gl_test.hpp"

namespace tomo::safir {
namespace {

constexpr std::array<double, 3> kHot{3.5, -2.1, 0.0};
constexpr double kHotRadius = 2.8, kCylinder = 9.0, kRatio = 4.0;

struct Case {
  Scanner scanner;
  ImageBox box;
  Phantom phantom;
  ListMode lm;
  std::vector<double> s, truth;
  pet::test::Regions regions;
  Case() {
    scanner.rings = 16;
    box.n = {32, 32, 12};
    phantom.mu_per_mm = 0;
    phantom.cylinder_radius_mm = kCylinder;
    phantom.background = 1.0;
    phantom.spheres = {{kHot, kHotRadius, kRatio - 1.0}};
    SimulationOptions o;
    o.events = 120000;
    o.seed = 11;
    lm = simulate(scanner, phantom, o);
    auto cpu = BackendRegistry<ListModeOperator>::instance().create("cpu");
    cpu->configure(scanner, box, {});
    s = compute_sensitivity(*cpu, scanner, box);
    const Grid3 g = box.grid();
    truth = phantom.rasterize(g).data;
    regions.hot.assign(g.count(), 0);
    regions.background.assign(g.count(), 0);
    for (int k = 0; k < g.dims[2]; ++k)
      for (int j = 0; j < g.dims[1]; ++j)
        for (int i = 0; i < g.dims[0]; ++i) {
          const auto p = g.centre(i, j, k);
          const double r = std::hypot(p[0], p[1]), d = std::hypot(p[0] - kHot[0], p[1] - kHot[1], p[2] - kHot[2]);
          const std::size_t v = g.index(i, j, k);
          regions.hot[v] = d < kHotRadius - 0.8;
          regions.background[v] = r < kCylinder - 1.5 && d > kHotRadius + 2.0 && std::abs(p[2]) < 3.0;
        }
  }
};

const Case& the_case() {
  static const Case c;
  return c;
}

std::vector<double> run(const std::string& backend, const pet::ReconOptions& o) {
  const Case& c = the_case();
  auto op = BackendRegistry<ListModeOperator>::instance().create(backend);
  op->configure(c.scanner, c.box, {});
  const std::vector<Frame> frames{{0, c.lm.events.size(), 0, 1}};
  op->set_events(order_for_subsets(c.lm.events, frames, o.subsets));
  FrameSubsets data(*op, c.s, 0, c.lm.events.size(), o.subsets);
  data.set_image(std::vector<double>(c.s.size(), 1.0));
  std::unique_ptr<pet::PriorOperator> prior;
  if (pet::uses_prior(o.algorithm)) prior = pet::make_prior(backend, {c.box.grid().dims, c.box.grid().voxel_mm}, o.prior, c.s);
  pet::reconstruct(data, o, prior.get());
  return data.image();
}

class SafirPetLayer : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() != "cpu") (void)test::gl_context();
  }
};

// With one subset the layer's ML-EM makes the calls of the operator's own loop: the same image up
// to the order of the backends' sums (OpenMP partial images, float atomics).
TEST_P(SafirPetLayer, MlemIsTheOperatorsLoop) {
  const Case& c = the_case();
  auto op = BackendRegistry<ListModeOperator>::instance().create(GetParam());
  op->configure(c.scanner, c.box, {});
  op->set_sensitivity(c.s);
  op->set_events(c.lm.events);
  run_mlem(*op, c.s.size(), 0, c.lm.events.size(), {.iterations = 3});
  const auto layer = run(GetParam(), {.algorithm = pet::Algorithm::mlem, .iterations = 3});
  EXPECT_LT(relative_l2(layer, op->image()), GetParam() == "cpu" ? 1e-13 : 1e-6);
}

TEST_P(SafirPetLayer, OsemEightSubsetsMatchEightMlemIterations) {
  const Case& c = the_case();
  const auto mlem = run(GetParam(), {.algorithm = pet::Algorithm::mlem, .iterations = 8});
  const auto osem = run(GetParam(), {.algorithm = pet::Algorithm::osem, .iterations = 1, .subsets = 8});
  const double e_mlem = nrmse(mlem, c.truth), e_osem = nrmse(osem, c.truth);
  std::printf("safir %s: NRMSE ML-EM x8 %.4f, OSEM 8 subsets x1 %.4f (%+.1f %%)\n", GetParam().c_str(), e_mlem, e_osem,
              100 * (e_osem / e_mlem - 1));
  EXPECT_LT(std::abs(e_osem / e_mlem - 1), 0.05);
}

TEST_P(SafirPetLayer, MapRdpLowersTheNoiseAtTheSameRecovery) {
  const Case& c = the_case();
  const int iterations = 20;
  const auto mlem = run(GetParam(), {.algorithm = pet::Algorithm::mlem, .iterations = iterations});
  const pet::RdpParams prior{.beta = 0.02, .gamma = 2.0, .epsilon = 1e-9};
  const auto map = run(GetParam(), {.algorithm = pet::Algorithm::map_rdp, .iterations = iterations, .prior = prior});
  const double cv_mlem = pet::test::background_cv(mlem, c.regions), cv_map = pet::test::background_cv(map, c.regions);
  const double rc_mlem = pet::test::hot_recovery(mlem, c.regions, kRatio),
               rc_map = pet::test::hot_recovery(map, c.regions, kRatio);
  std::printf("safir %s, %d iterations: background CV ML-EM %.4f, MAP-RDP %.4f (%+.1f %%); hot recovery %.4f, %.4f (%+.1f %%)\n",
              GetParam().c_str(), iterations, cv_mlem, cv_map, 100 * (cv_map / cv_mlem - 1), rc_mlem, rc_map,
              100 * (rc_map / rc_mlem - 1));
  EXPECT_LT(cv_map, 0.7 * cv_mlem);
  EXPECT_LT(std::abs(rc_map / rc_mlem - 1), 0.05);
}

INSTANTIATE_TEST_SUITE_P(Backends, SafirPetLayer, ::testing::Values("cpu", "gl-compute"),
                         [](const auto& info) { return info.param == "cpu" ? std::string("cpu") : "gl_compute"; });

TEST(SafirSubsets, EachFrameIsInterleavedOnItsOwn) {
  std::vector<Event> ev;
  for (std::uint32_t i = 0; i < 7; ++i) ev.push_back({i, i + 100});
  const std::vector<Frame> frames{{0, 4, 0, 1}, {4, 3, 1, 2}};
  const auto out = order_for_subsets(ev, frames, 2);
  std::vector<std::uint32_t> a;
  for (const Event& e : out) a.push_back(e.a);
  EXPECT_EQ(a, (std::vector<std::uint32_t>{0, 2, 1, 3, 4, 6, 5}));
}

// The order made on all threads is subset_permutation's: frames whose counts are not multiples
// of the subsets, a frame shorter than the subset count, and events outside every frame.
TEST(SafirSubsets, OrderIsThePermutationsOnAnyFrames) {
  std::vector<Event> ev;
  for (std::uint32_t i = 0; i < 100003; ++i) ev.push_back({i, 3 * i + 1});
  const auto check = [&](const std::vector<Frame>& frames, int subsets) {
    const auto out = order_for_subsets(ev, frames, subsets);
    const std::vector<std::size_t> perm = subset_permutation(ev.size(), frames, subsets);
    ASSERT_EQ(out.size(), ev.size());
    std::size_t wrong = 0;
    for (std::size_t p = 0; p < ev.size(); ++p) wrong += out[p].a != ev[perm[p]].a || out[p].b != ev[perm[p]].b;
    EXPECT_EQ(wrong, 0u) << subsets << " subsets, " << frames.size() << " frames";
  };
  check({{0, 100003, 0, 1}}, 8);
  check({{0, 100003, 0, 1}}, 1);
  check({{0, 50001, 0, 1}, {50001, 5, 1, 2}, {50006, 49997, 2, 3}}, 7);
  check({{0, 60000, 0, 1}}, 8);  // the rest outside every frame keeps its place
}

}  // namespace
}  // namespace tomo::safir
