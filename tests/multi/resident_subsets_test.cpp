// strip's subsets resident on a rank (compute/strip/run_ranks.hpp): one projector per subset gives
// the very numbers of EventSubsets, which uploads each subset's events when it is visited, for
// ML-EM, OSEM and past the resident limit, in the EM steps and the ratio back-projections, when each
// step starts from the image handed back (as on several ranks).
#include <gtest/gtest.h>

#include <vector>

#include "compute/core/registry.hpp"
#include "compute/pet/reconstruct.hpp"
#include "compute/strip/run_ranks.hpp"
#include "compute/strip/simulator.hpp"

namespace tomo::strip {
namespace {

TEST(ResidentSubsets, SameNumbersAsSubsetsUploadedOnEachVisit) {
  const StripGeometry g = StripGeometry::covering(100.0, 200.0, 20.0);
  const Resolution res{10.0, 40.0};
  StripPhantom phantom;
  phantom.rows = {{0.0, 0.0, 60.0, 40.0, 0.0, 1.0}};
  const std::vector<Event> events = simulate_phantom(g, res, phantom, 3000, 7);
  ASSERT_GT(events.size(), 1000u);
  auto& reg = BackendRegistry<ListModeProjector>::instance();
  const auto make = [&] {
    auto op = reg.create("cpu");
    op->configure(g, res, {.threads = 1});  // one thread: the per-thread partial sums fix no order
    return op;
  };
  for (const int subsets : {1, 3, ResidentSubsets::kMaxResident + 1}) {
    auto visiting = make();
    if (subsets == 1) visiting->set_events(events);
    EventSubsets a(*visiting, events, subsets, g.pixel_count());
    ResidentSubsets b(make, events, subsets, g.pixel_count());
    std::vector<double> x(g.pixel_count());
    for (std::size_t j = 0; j < x.size(); ++j) x[j] = 1.0 + 0.1 * double(j % 7);
    a.set_image(x);
    b.set_image(x);
    for (int step = 0; step < 4; ++step) {
      const int k = (2 * step + 1) % subsets;
      EXPECT_EQ(a.back_ratio(k), b.back_ratio(k)) << subsets << " subsets, subset " << k;
      a.em_step(k);
      b.em_step(k);
      const std::vector<double> xa = a.image(), xb = b.image();
      EXPECT_EQ(xa, xb) << subsets << " subsets, step " << step;
      // As SummedSubsets does after every step (the team's sum handed back): the next step starts
      // from the scaled image in both.
      a.set_image(xa);
      b.set_image(xb);
      double sum = 0;
      for (double v : xa) sum += v;
      EXPECT_GT(sum, 0.0);
    }
    EXPECT_EQ(a.sensitivity(0), b.sensitivity(0));
  }
}

}  // namespace
}  // namespace tomo::strip
