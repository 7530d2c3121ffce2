// fdk.initial_image and fdk.save_iterations in the algorithms: the image after iteration k,
// handed back as the start, continues SIRT and OS-SART exactly (they carry nothing else between
// iterations); CGLS and FISTA-TV restart their directions / momentum from it, so they only
// continue downhill from it.
#include <gtest/gtest.h>

#include "compute/core/registry.hpp"
#include "compute/fdk/iterative.hpp"
#include "compute/fdk/metrics.hpp"
#include "compute/fdk/pipeline.hpp"
#include "compute/fdk/simulate.hpp"

using namespace tomo;
using namespace tomo::fdk;

namespace {

struct Small {
  ConeGeometry g;
  std::vector<float> b;
};

Small small() {
  CArmGeometry c;
  c.projections = 10;
  c.arc_deg = 300.0;
  c.sx = c.sy = 20;
  c.pixel_mm = 288.0 / 20;
  const Phantom ph = shepp_logan_3d(80.0, 0.02);
  return {{rabbit_grid(12, 160.0), c.sx, c.sy, c.matrices()}, simulate_projections(ph, c)};
}

struct Trace {
  std::vector<double> residual;
  std::vector<std::pair<int, std::vector<float>>> saved;
  VolumeF volume;
};

Trace run(const Small& p, IterativeOptions o) {
  auto A = BackendRegistry<ConeBeamProjector>::instance().create("cpu");
  A->setup(p.g);
  Trace t;
  o.on_image = [&](int it, std::vector<float> x) { t.saved.emplace_back(it, std::move(x)); };
  t.volume = reconstruct_iterative(*A, p.g, p.b, o, [&](int, double r) { t.residual.push_back(r); });
  return t;
}

}  // namespace

TEST(FdkIterativeResume, SirtAndOsSartResumedEqualStraightThrough) {
  const Small p = small();
  for (Algorithm a : {Algorithm::sirt, Algorithm::os_sart}) {
    const Trace straight = run(p, {.algorithm = a, .iterations = 6, .subsets = 3, .save_iterations = {3, 6}});
    ASSERT_EQ(straight.saved.size(), 2u) << to_string(a);
    EXPECT_EQ(straight.saved[0].first, 3);
    EXPECT_EQ(straight.saved[1].first, 6);
    EXPECT_EQ(straight.saved[1].second, straight.volume.data);  // the last saved image is the result
    const Trace resumed = run(p, {.algorithm = a, .iterations = 3, .subsets = 3, .initial = straight.saved[0].second});
    EXPECT_LE(relative_l2(resumed.volume.data, straight.volume.data), 1e-6) << to_string(a);
    ASSERT_EQ(resumed.residual.size(), 3u);
    EXPECT_NEAR(resumed.residual.back(), straight.residual.back(), 1e-6 * straight.residual.back()) << to_string(a);
  }
}

TEST(FdkIterativeResume, CglsAndTvContinueFromTheImage) {
  const Small p = small();
  for (Algorithm a : {Algorithm::cgls, Algorithm::tv}) {
    const Trace straight = run(p, {.algorithm = a, .iterations = 4, .save_iterations = {4}});
    ASSERT_EQ(straight.saved.size(), 1u);
    const Trace resumed = run(p, {.algorithm = a, .iterations = 3, .initial = straight.saved[0].second});
    // From the image after 4 iterations, not from zero: the residual starts where it was.
    EXPECT_LT(resumed.residual.front(), 1.05 * straight.residual.back()) << to_string(a);
    const Trace fresh = run(p, {.algorithm = a, .iterations = 3});
    EXPECT_LT(resumed.residual.back(), fresh.residual.back()) << to_string(a);
  }
}

TEST(FdkIterativeResume, AStartOfTheWrongSizeIsRefused) {
  const Small p = small();
  EXPECT_THROW(run(p, {.algorithm = Algorithm::sirt, .iterations = 1, .initial = std::vector<float>(7, 0.0f)}), Error);
}
