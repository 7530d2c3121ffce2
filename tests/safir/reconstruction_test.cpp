// ML-EM on Monte-Carlo data (never the operator's own model): a point source lands on the source
// within a voxel; the Derenzo groups are resolved down to a stated size; halving the events
// (code sample 4) converges to the same place.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "compute/core/registry.hpp"
#include "compute/safir/mlem.hpp"
#include "compute/safir/phantom.hpp"
#include "compute/safir/sensitivity.hpp"
#include "compute/safir/simulator.hpp"

namespace tomo::safir {
namespace {

// The seed's ring (180 crystals of 2.2 mm) with 16 rings (35 mm): the test's all-pairs
// sensitivity takes a second.
Scanner short_scanner() {
  Scanner sc;
  sc.rings = 16;
  return sc;
}

std::vector<double> reconstruct(const Scanner& sc, const ImageBox& box, const Phantom& ph, std::uint64_t events,
                                int iterations, bool halve = false) {
  SimulationOptions o;
  o.events = events;
  o.seed = 7;
  const ListMode lm = simulate(sc, ph, o);
  auto op = BackendRegistry<ListModeOperator>::instance().create("cpu");
  op->configure(sc, box, {});
  op->set_sensitivity(compute_sensitivity(*op, sc, box));
  op->set_events(lm.events);
  run_mlem(*op, box.count(), 0, lm.events.size(), {iterations, halve});
  return op->image();
}

std::array<double, 3> peak_centroid(const std::vector<double>& img, const Grid3& g) {
  const double top = *std::max_element(img.begin(), img.end());
  double w = 0, c[3] = {0, 0, 0};
  for (int k = 0; k < g.dims[2]; ++k)
    for (int j = 0; j < g.dims[1]; ++j)
      for (int i = 0; i < g.dims[0]; ++i) {
        const double v = img[g.index(i, j, k)];
        if (v < 0.5 * top) continue;
        const auto p = g.centre(i, j, k);
        for (int a = 0; a < 3; ++a) c[a] += v * p[a];
        w += v;
      }
  return {c[0] / w, c[1] / w, c[2] / w};
}

TEST(SafirReconstruction, PointSourceLandsWithinAVoxel) {
  const Scanner sc = short_scanner();
  ImageBox box;
  box.n = {30, 30, 16};
  const std::array<double, 3> src{2.3, -1.2, 0.9};
  Phantom ph;
  ph.mu_per_mm = 0;
  ph.spheres = {{src, 0.1, 1.0}};
  for (const bool halve : {false, true}) {
    const auto img = reconstruct(sc, box, ph, 20000, halve ? 8 : 10, halve);
    const auto c = peak_centroid(img, box.grid());
    const double err = std::hypot(c[0] - src[0], c[1] - src[1], c[2] - src[2]);
    std::printf("point source (%s): centroid (%.3f, %.3f, %.3f) mm, %.3f mm from the source\n",
                halve ? "halving events" : "all events", c[0], c[1], c[2], err);
    EXPECT_LT(err, box.voxel_mm);
  }
}

TEST(SafirReconstruction, DerenzoGroupsResolvedDownTo1_2mm) {
  const Scanner sc = short_scanner();
  ImageBox box;
  box.n = {66, 66, 3};  // the sphere plane z = 0 and one slice each side
  Phantom ph;
  ph.spheres = Phantom::derenzo(22.0);
  const auto img = reconstruct(sc, box, ph, 150000, 12);
  const Grid3 g = box.grid();
  auto at = [&](double x, double y) {
    const int i = static_cast<int>(std::lround((x - g.origin_mm[0]) / g.voxel_mm[0]));
    const int j = static_cast<int>(std::lround((y - g.origin_mm[1]) / g.voxel_mm[1]));
    return img[g.index(i, j, 1)];
  };
  // Peak (sphere centres) and valley (midpoints of neighbouring centres) per group; a group is
  // resolved when valley / peak < 0.75.
  for (double d : kDerenzoDiameters) {
    double peak = 0, valley = 0;
    int np = 0, nv = 0;
    std::vector<Sphere> group;
    for (const Sphere& s : ph.spheres)
      if (std::abs(2 * s.radius - d) < 1e-9) group.push_back(s);
    for (const Sphere& s : group) {
      peak += at(s.centre[0], s.centre[1]);
      ++np;
      for (const Sphere& t : group) {
        const double dist = std::hypot(s.centre[0] - t.centre[0], s.centre[1] - t.centre[1]);
        if (&s < &t && std::abs(dist - 2 * d) < 1e-6) {
          valley += at(0.5 * (s.centre[0] + t.centre[0]), 0.5 * (s.centre[1] + t.centre[1]));
          ++nv;
        }
      }
    }
    const double ratio = (valley / nv) / (peak / np);
    std::printf("Derenzo %.1f mm: %d spheres, valley/peak %.3f\n", d, np, ratio);
    if (d >= 1.2) {
      EXPECT_LT(ratio, 0.75) << d << " mm group";
    }
  }
}

}  // namespace
}  // namespace tomo::safir
