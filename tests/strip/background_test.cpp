// strip's randoms and scatter terms (docs/pet.md), cpu and gl-compute: a uniform disc with 20 %
// simulated randoms and 15 % scattered pairs (background.hpp) reconstructs with a low background
// outside the disc when the uniform additive term is in the forward model, and with the
// background the data carry without it; the additive counts follow the sensitivity at each
// event's position.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/strip/background.hpp"
#include "compute/strip/mlem.hpp"
#include "compute/strip/projector.hpp"
#include "compute/strip/simulator.hpp"
#include "compute/strip/subsets.hpp"
#include "tests/support/gl_test.hpp"

namespace tomo::strip {
namespace {

constexpr double kDisc = 60.0, kRandoms = 0.2, kScatter = 0.15;

struct Case {
  StripGeometry g = StripGeometry::covering(130.0, 300.0, 10.0);
  Resolution res{10.0, 40.0};
  StripPhantom phantom;
  std::vector<Event> clear, prompts;
  std::vector<double> s;
  Case() {
    phantom.rows = {{0.0, 0.0, kDisc, kDisc, 0.0, 1.0}};
    clear = simulate_phantom(g, res, phantom, 40000, 5);
    prompts = add_background(g, res, phantom, clear, kRandoms, kScatter, 5);
    s = sensitivity_image(g);
  }
};

const Case& the_case() {
  static const Case c;
  return c;
}

// ρ = ρ'/s after ML-EM × 20 (or OSEM 5 × 4), with the uniform additive term when `fraction` > 0.
std::vector<double> recon(const std::string& backend, const std::vector<Event>& ev, double fraction, int subsets = 1) {
  const Case& c = the_case();
  auto op = BackendRegistry<ListModeProjector>::instance().create(backend);
  op->configure(c.g, c.res, {});
  op->set_events(ev);
  pet::ForwardTerms terms;
  if (fraction > 0)
    terms.additive = additive_counts(
        c.g, ev, std::vector<double>(ev.size(), fraction * double(ev.size()) / event_space_volume(c.g)), c.s);
  EventSubsets data(*op, ev, subsets, c.g.pixel_count(), {}, nullptr, terms);
  const double level = fraction > 0 ? (1 - fraction) * double(ev.size()) / double(c.g.pixel_count()) : 1.0;
  data.set_image(std::vector<double>(c.g.pixel_count(), level));
  pet::ReconOptions o;
  o.algorithm = subsets > 1 ? pet::Algorithm::osem : pet::Algorithm::mlem;
  o.iterations = subsets > 1 ? 4 : 20;
  o.subsets = subsets;
  pet::reconstruct(data, o, nullptr);
  return rho_from_rho_prime(data.image(), c.s);
}

// Mean of ρ outside the disc (within the strips' central field) over its mean inside.
double outside_over_inside(const std::vector<double>& rho) {
  const Case& c = the_case();
  double in = 0, out = 0;
  int ni = 0, no = 0;
  for (int j = 0; j < c.g.n_y; ++j)
    for (int k = 0; k < c.g.n_z; ++k) {
      const double y = c.g.y_centre(j), z = c.g.z_centre(k), r = std::hypot(y, z);
      if (std::abs(y) > 80.0 || std::abs(z) > 110.0) continue;
      const double v = rho[c.g.index(j, k)];
      if (r < kDisc - 15.0) in += v, ++ni;
      if (r > kDisc + 25.0) out += v, ++no;
    }
  return (out / no) / (in / ni);
}

class StripBackground : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() != "cpu") (void)test::gl_context();
  }
};

TEST_P(StripBackground, AdditiveTermRemovesRandomsAndScatter) {
  const Case& c = the_case();
  const double clear = outside_over_inside(recon(GetParam(), c.clear, 0.0));
  const double with = outside_over_inside(recon(GetParam(), c.prompts, kRandoms + kScatter));
  const double osem = outside_over_inside(recon(GetParam(), c.prompts, kRandoms + kScatter, 5));
  const double without = outside_over_inside(recon(GetParam(), c.prompts, 0.0));
  std::printf("strip %s outside/inside: clean data %.3f, 20 %% randoms + 15 %% scatter with the term %.3f (OSEM 5 x 4:"
              " %.3f), without %.3f\n",
              GetParam().c_str(), clear, with, osem, without);
  EXPECT_LT(with, 0.5 * without);
  EXPECT_LT(osem, 0.5 * without);
  EXPECT_LT(with, clear + 0.05);
}

INSTANTIATE_TEST_SUITE_P(Backends, StripBackground, ::testing::Values("cpu", "gl-compute"),
                         [](const auto& info) { return info.param == "cpu" ? std::string("cpu") : "gl_compute"; });

TEST(StripBackgroundSimulation, SharesAndAdditiveCounts) {
  const Case& c = the_case();
  const double n = double(c.clear.size()) / (1 - kRandoms - kScatter);
  EXPECT_NEAR(double(c.prompts.size()), n, 2.0);
  // Randoms fill Δl uniformly in [−2R, 2R] = [−260, 260] mm; the disc's trues keep |Δl| below
  // about 2·60 mm + 3σ: the randoms add most of the events beyond 150 mm.
  int wide_clear = 0, wide = 0;
  for (const Event& e : c.clear) wide_clear += std::abs(e.dl) > 150.0f;
  for (const Event& e : c.prompts) wide += std::abs(e.dl) > 150.0f;
  EXPECT_GT(wide, wide_clear + int(0.1 * kRandoms * n));
  // The additive count is the density times s at the event's reconstructed position.
  const std::vector<Event> one{{0.0f, 0.0f, 0.0f}};  // the centre: ỹ = z̃ = 0
  const std::vector<double> c0 = additive_counts(c.g, one, std::vector<double>{2.0}, c.s);
  const int j = int(std::lround((0.0 - c.g.y_centre(0)) / c.g.pixel_y)),
            k = int(std::lround((0.0 - c.g.z_centre(0)) / c.g.pixel_z));
  EXPECT_DOUBLE_EQ(c0[0], 2.0 * c.s[c.g.index(j, k)]);
  EXPECT_THROW(add_background(c.g, c.res, c.phantom, c.clear, 0.6, 0.4, 1), InputError);
}

}  // namespace
}  // namespace tomo::strip
