// Eq. (12) ray tracing of single lines against hand-computed weights, the labels of open point 2
// and the sort by label ([Locans2017] §5.3.1).
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "compute/safir/kernel_math.hpp"
#include "compute/safir/labels.hpp"

namespace tomo::safir {
namespace {

// A 4 × 4 × 4 box of 1 mm voxels with centres at 0..3 mm.
BoxParams<double> box4() {
  BoxParams<double> g{};
  for (int i = 0; i < 3; ++i) {
    g.origin[i] = 0.0;
    g.n[i] = 4;
  }
  g.voxel = 1.0;
  g.md = std::sqrt(2.0);
  return g;
}

std::map<int, double> weights(const double a[3], const double b[3], const BoxParams<double>& g) {
  std::map<int, double> w;
  walk_line(a, b, label_line(a, b, g), g, [&](int j, double v) { w[j] += v; });
  return w;
}

int idx(int i, int j, int k) { return i + 4 * (j + 4 * k); }

TEST(SafirRaytrace, LineAlongXGetsTheFourWeightsOfEq12InEverySlice) {
  // y = 1.3 (0.3 past centre 1), z = 2.0 (on centre 2): per x slice the block (y 1..2) × (z 2..3).
  const double a[3] = {-50, 1.3, 2.0}, b[3] = {50, 1.3, 2.0};
  const auto g = box4();
  EXPECT_EQ(label_line(a, b, g), kLabelX);
  const auto w = weights(a, b, g);
  const double r2 = std::sqrt(2.0);
  for (int x = 0; x < 4; ++x) {
    EXPECT_NEAR(w.at(idx(x, 1, 2)), r2 - 0.3, 1e-12);
    EXPECT_NEAR(w.at(idx(x, 2, 2)), r2 - 0.7, 1e-12);
    EXPECT_NEAR(w.at(idx(x, 1, 3)), r2 - std::sqrt(0.09 + 1.0), 1e-12);
    EXPECT_NEAR(w.at(idx(x, 2, 3)), r2 - std::sqrt(0.49 + 1.0), 1e-12);
  }
  EXPECT_EQ(w.size(), 16u);
}

TEST(SafirRaytrace, ObliqueLineWeighsByPathLengthPerSlice) {
  // Along y with slope 0.25 in x: x = 0.5 + 0.25 (y − 0) through the box, z = 1.0 on a centre.
  const double a[3] = {0.5 - 25.0, -100.0, 1.0}, b[3] = {0.5 + 25.0, 100.0, 1.0};
  const auto g = box4();
  EXPECT_EQ(label_line(a, b, g), kLabelY);
  const auto w = weights(a, b, g);
  const double scale = std::sqrt(1.0 + 0.25 * 0.25), r2 = std::sqrt(2.0);
  // Slice y = 2: p_x = 1.0 exactly on centre 1 → weights at x = 1 (distance 0) and x = 2 (distance 1),
  // z neighbours (z = 2) at distances 1 and √2 (the latter weight 0: not visited).
  EXPECT_NEAR(w.at(idx(1, 2, 1)), r2 * scale, 1e-12);
  EXPECT_NEAR(w.at(idx(2, 2, 1)), (r2 - 1.0) * scale, 1e-12);
  EXPECT_NEAR(w.at(idx(1, 2, 2)), (r2 - 1.0) * scale, 1e-12);
  EXPECT_EQ(w.count(idx(2, 2, 2)), 0u);
  // Slice y = 1: p_x = 0.75 → x = 0 at 0.75, x = 1 at 0.25.
  EXPECT_NEAR(w.at(idx(0, 1, 1)), (r2 - 0.75) * scale, 1e-12);
  EXPECT_NEAR(w.at(idx(1, 1, 1)), (r2 - 0.25) * scale, 1e-12);
}

TEST(SafirRaytrace, SteepLinesAreZLabelledAndWalkZSlices) {
  const auto g = box4();
  const double a[3] = {1.5, 1.5, -100}, b[3] = {1.5, 1.5, 100};  // along z through the middle of a 2×2 block
  EXPECT_EQ(label_line(a, b, g), kLabelZ);
  const auto w = weights(a, b, g);
  EXPECT_EQ(w.size(), 16u);  // 4 z slices × 4 voxels
  for (const auto& [j, v] : w) EXPECT_NEAR(v, std::sqrt(2.0) - std::sqrt(0.5), 1e-12);
}

TEST(SafirRaytrace, LinesMissingTheBoxAreLabelZeroAndGiveNothing) {
  const auto g = box4();
  const double a[3] = {-50, 5.1, 1.0}, b[3] = {50, 5.1, 1.0};  // 2.1 voxels past the last centre
  EXPECT_EQ(label_line(a, b, g), kLabelSkip);
  const double c[3] = {3, 3, 3};
  EXPECT_EQ(label_line(c, c, g), kLabelSkip);
  const double a2[3] = {-50, 3.9, 1.0}, b2[3] = {50, 3.9, 1.0};  // within one voxel: still touches y = 3
  EXPECT_EQ(label_line(a2, b2, g), kLabelX);
  EXPECT_FALSE(weights(a2, b2, g).empty());
}

TEST(SafirRaytrace, ReversedLineHasTheSameWeights) {
  const auto g = box4();
  const double a[3] = {-40, -7, -9}, b[3] = {44, 9.5, 13};
  const auto w1 = weights(a, b, g), w2 = weights(b, a, g);
  ASSERT_EQ(w1.size(), w2.size());
  for (const auto& [j, v] : w1) EXPECT_NEAR(v, w2.at(j), 1e-12);
}

TEST(SafirLabels, LabelsAndStableSortByKey) {
  Scanner sc;
  sc.rings = 8;
  sc.crystals = 24;
  ImageBox box;
  box.n = {10, 10, 6};
  box.voxel_mm = 1.0;
  const std::uint32_t opposite_x = sc.id(3, 12);  // detector 0 at +x, 12 at −x
  const std::vector<Event> ev = {{sc.id(3, 0), opposite_x},       // x
                                 {sc.id(2, 6), sc.id(2, 18)},     // y (90° and 270°)
                                 {sc.id(0, 1), sc.id(0, 2)},      // neighbours: misses the box → 0
                                 {sc.id(4, 0), sc.id(4, 12)},     // x
                                 {sc.id(0, 6), sc.id(7, 18)},     // y
                                 {sc.id(5, 5), sc.id(5, 5)}};     // same crystal → 0
  const auto labels = label_events(ev, sc, box);
  EXPECT_EQ(labels, (std::vector<std::uint8_t>{kLabelX, kLabelY, kLabelSkip, kLabelX, kLabelY, kLabelSkip}));
  const SortedEvents s = sort_by_label(ev, labels);
  EXPECT_EQ(s.order, (std::vector<std::uint32_t>{0, 3, 1, 4}));
  EXPECT_EQ(s.offsets[1], 0u);
  EXPECT_EQ(s.offsets[2], 2u);
  EXPECT_EQ(s.offsets[3], 4u);
  EXPECT_EQ(s.offsets[4], 4u);
  EXPECT_EQ(s.events[2].a, ev[1].a);

  // A 200 mm long scanner with a 63 mm radius: the largest ring differences run along z.
  Scanner seed;  // 91 × 180
  ImageBox seed_box;
  const std::vector<Event> steep = {{seed.id(0, 0), seed.id(90, 90)}, {seed.id(45, 0), seed.id(45, 90)}, {seed.id(0, 0), seed.id(0, 90)}};
  const auto l2 = label_events(steep, seed, seed_box);
  EXPECT_EQ(l2[0], kLabelZ);
  EXPECT_EQ(l2[1], kLabelX);
  EXPECT_EQ(l2[2], kLabelSkip);  // ring 0 lies at z = −99 mm, the box ends at ±17.5 mm
}

TEST(SafirRaytrace, WithMdOneVoxelTheWeightsAreContinuousAcrossCentres) {
  // m_d = 1: every voxel within one voxel of p is in the 2×2 block, so the block choice (open
  // point 1) cannot matter: p just below and just above a centre give the same weights.
  auto g = box4();
  g.md = 1.0;
  const double a1[3] = {-50, 2.0 - 1e-9, 1.0}, b1[3] = {50, 2.0 - 1e-9, 1.0};
  const double a2[3] = {-50, 2.0 + 1e-9, 1.0}, b2[3] = {50, 2.0 + 1e-9, 1.0};
  const auto w1 = weights(a1, b1, g), w2 = weights(a2, b2, g);
  double diff = 0;
  for (const auto& [j, v] : w1) diff += std::abs(v - (w2.count(j) ? w2.at(j) : 0.0));
  for (const auto& [j, v] : w2) diff += w1.count(j) ? 0.0 : v;
  EXPECT_LT(diff, 1e-8);
  EXPECT_NEAR(w1.at(idx(0, 2, 1)), 1.0, 1e-8);  // on the centre: weight m_d
  // With m_d = √2 the same shift moves a weight √2 − 1 from y = 1 to y = 3.
  g.md = std::sqrt(2.0);
  const auto v1 = weights(a1, b1, g), v2 = weights(a2, b2, g);
  EXPECT_NEAR(v1.at(idx(0, 1, 1)), std::sqrt(2.0) - 1.0, 1e-8);
  EXPECT_NEAR(v2.at(idx(0, 3, 1)), std::sqrt(2.0) - 1.0, 1e-8);
  EXPECT_EQ(v2.count(idx(0, 1, 1)), 0u);
}

}  // namespace
}  // namespace tomo::safir
