// The gl-compute backend (thread and warp granularity, with and without the float-atomic /
// subgroup extensions) equals the cpu reference after one ML-EM iteration within 1e-4 relative L2.
// Runs in CI on Mesa llvmpipe (never skipped: no context is a failure).
#include <gtest/gtest.h>

#include "compute/core/registry.hpp"
#include "tests/support/gl_test.hpp"
#include "compute/strip/mlem.hpp"
#include "compute/strip/phantom.hpp"
#include "compute/strip/simulator.hpp"

namespace tomo::strip {
namespace {

std::vector<double> one_iteration(const std::string& backend, const ProjectorOptions& o, const StripGeometry& g,
                                  const std::vector<Event>& events) {
  auto op = BackendRegistry<ListModeProjector>::instance().create(backend);
  op->configure(g, {10.0, 40.0}, o);
  op->set_events(events);
  op->set_image(std::vector<double>(g.pixel_count(), 1.0));
  op->iterate();
  return op->image();
}

struct GlCase {
  Granularity granularity;
  bool portable;
  friend void PrintTo(const GlCase& c, std::ostream* os) { *os << to_string(c.granularity) << (c.portable ? " portable" : ""); }
};

class StripGlComputeVsCpu : public ::testing::TestWithParam<GlCase> {};

TEST_P(StripGlComputeVsCpu, OneIterationWithin1e4) {
  test::gl_context();
  const StripGeometry g = StripGeometry::covering(130.0, 300.0, 4.0);
  const auto events = simulate_phantom(g, {10.0, 40.0}, StripPhantom::appendix_a(), 8000, 31);
  ProjectorOptions o;
  const auto ref = one_iteration("cpu", o, g, events);
  o.granularity = GetParam().granularity;
  o.portable = GetParam().portable;
  const auto gl = one_iteration("gl-compute", o, g, events);
  const double err = relative_l2(gl, ref);
  std::printf("gl-compute %s%s: relative L2 vs cpu %.3g\n", to_string(o.granularity).c_str(), o.portable ? " (portable)" : "", err);
  EXPECT_LT(err, 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Variants, StripGlComputeVsCpu,
                         ::testing::Values(GlCase{Granularity::thread, false}, GlCase{Granularity::warp, false},
                                           GlCase{Granularity::thread, true}, GlCase{Granularity::warp, true}),
                         [](const auto& info) {
                           return to_string(info.param.granularity) + (info.param.portable ? "_portable" : "_extensions");
                         });

TEST(StripGlCompute, BoxesLargerThanTheWarpCache) {
  test::gl_context();
  const StripGeometry g = StripGeometry::covering(130.0, 300.0, 1.0);  // ~5000-pixel boxes, beyond 32 × 32
  const auto events = simulate_phantom(g, {10.0, 40.0}, StripPhantom::appendix_a(), 300, 32);
  ProjectorOptions o;
  const auto ref = one_iteration("cpu", o, g, events);
  o.granularity = Granularity::warp;
  EXPECT_LT(relative_l2(one_iteration("gl-compute", o, g, events), ref), 1e-4);
}

}  // namespace
}  // namespace tomo::strip
