// strip's OSEM on the cuda backend (label gpu; skips without a CUDA device): subsets resident in
// projectors of their own (what a run does on one device) run the same steps as one projector
// that gets each subset's events when visited, and agree with the cpu reference; so do OSEM steps
// with the randoms and scatter term (formed on the host over the backend's projections).
#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/strip/background.hpp"
#include "compute/strip/mlem.hpp"
#include "compute/strip/simulator.hpp"
#include "compute/strip/subsets.hpp"

namespace tomo::strip {
namespace {

std::vector<double> osem(const std::string& backend, const std::vector<Event>& events, const StripGeometry& g,
                         const Resolution& res, bool resident, const pet::ForwardTerms& terms = {}) {
  auto make = [&] {
    auto p = BackendRegistry<ListModeProjector>::instance().create(backend);
    p->configure(g, res, {});
    return p;
  };
  auto op = make();
  EventSubsets data(*op, events, 4, g.pixel_count(), {},
                    resident ? std::function<std::unique_ptr<ListModeProjector>()>(make) : nullptr, terms);
  data.set_image(std::vector<double>(g.pixel_count(), 1.0));
  pet::reconstruct(data, {.algorithm = pet::Algorithm::osem, .iterations = 2, .subsets = 4}, nullptr);
  return data.image();
}

TEST(StripPetLayerCuda, ResidentSubsetsRunTheSameSteps) {
  if (!BackendRegistry<ListModeProjector>::instance().available("cuda").ok) GTEST_SKIP() << "no CUDA device";
  const StripGeometry g = StripGeometry::covering(130.0, 300.0, 10.0);
  const Resolution res{10.0, 40.0};
  StripPhantom phantom;
  phantom.rows = {{30.0, 20.0, 24.0, 24.0, 0.0, 4.0}, {0.0, 0.0, 90.0, 90.0, 0.0, 1.0}};
  const std::vector<Event> events = simulate_phantom(g, res, phantom, 40000, 77);
  const auto uploaded = osem("cuda", events, g, res, false), resident = osem("cuda", events, g, res, true);
  const auto ref = osem("cpu", events, g, res, true);
  EXPECT_LT(relative_l2(resident, uploaded), 1e-5);  // float atomics in any order
  EXPECT_LT(relative_l2(resident, ref), 1e-4);       // float against the cpu's double
}

TEST(StripPetLayerCuda, AdditiveTermMatchesTheCpu) {
  if (!BackendRegistry<ListModeProjector>::instance().available("cuda").ok) GTEST_SKIP() << "no CUDA device";
  const StripGeometry g = StripGeometry::covering(130.0, 300.0, 10.0);
  const Resolution res{10.0, 40.0};
  StripPhantom phantom;
  phantom.rows = {{0.0, 0.0, 60.0, 60.0, 0.0, 1.0}};
  const std::vector<Event> events = add_background(g, res, phantom, simulate_phantom(g, res, phantom, 40000, 5), 0.2, 0.15, 5);
  pet::ForwardTerms terms;
  terms.additive = additive_counts(
      g, events, std::vector<double>(events.size(), 0.35 * double(events.size()) / event_space_volume(g)),
      sensitivity_image(g));
  const auto gpu = osem("cuda", events, g, res, true, terms), ref = osem("cpu", events, g, res, true, terms);
  EXPECT_LT(relative_l2(gpu, ref), 1e-4);
}

}  // namespace
}  // namespace tomo::strip
