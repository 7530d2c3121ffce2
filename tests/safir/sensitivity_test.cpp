// Open point 3: the sensitivity over all crystal pairs, from 1/8 of the ordered pairs and the
// scanner's symmetry, equals the brute-force sum over every pair.
#include <gtest/gtest.h>

#include <algorithm>

#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/safir/sensitivity.hpp"
#include "tests/support/input_errors.hpp"

namespace tomo::safir {
namespace {

TEST(SafirSensitivity, SymmetricEqualsAllPairs) {
  Scanner sc;
  sc.rings = 7;  // odd: the middle ring is its own mirror image
  sc.crystals = 40;
  ImageBox box;
  box.n = {14, 14, 9};
  box.voxel_mm = 0.9;
  auto op = BackendRegistry<ListModeOperator>::instance().create("cpu");
  op->configure(sc, box, {});
  const auto sym = compute_sensitivity(*op, sc, box, SensitivityMode::symmetric);
  const auto all = compute_sensitivity(*op, sc, box, SensitivityMode::all_pairs, 1 << 14);
  const double err = relative_l2(sym, all);
  std::printf("symmetric vs all pairs: relative L2 %.3g, max s %.4g\n", err, *std::max_element(all.begin(), all.end()));
  // Lines at exactly 45° pick x where their quarter-turned twin picks y; with 40 crystals their
  // x and y walks agree.
  EXPECT_LT(err, 1e-12);
  EXPECT_GT(*std::min_element(all.begin(), all.end()), 0.0);  // every voxel is seen by some LOR
}

TEST(SafirSensitivity, EvenRingsAndOneLorByHand) {
  Scanner sc;
  sc.rings = 2;
  sc.crystals = 40;  // with 8 or 12 crystals, lines at exactly 45° (which pick x) weigh in
  ImageBox box;
  box.n = {4, 4, 2};
  box.voxel_mm = 1.0;
  auto op = BackendRegistry<ListModeOperator>::instance().create("cpu");
  op->configure(sc, box, {});
  const auto sym = compute_sensitivity(*op, sc, box, SensitivityMode::symmetric);
  const auto all = compute_sensitivity(*op, sc, box, SensitivityMode::all_pairs);
  EXPECT_LT(relative_l2(sym, all), 1e-12);
  // The all-pairs sum is the back-projection of every LOR once.
  std::vector<Event> lors;
  for (std::uint32_t a = 0; a < sc.crystal_count(); ++a)
    for (std::uint32_t b = a + 1; b < sc.crystal_count(); ++b) lors.push_back({a, b});
  op->set_events(lors);
  EXPECT_LT(relative_l2(op->back({}), all), 1e-12);
}

TEST(SafirSensitivity, ScannerOtherThanTheOperatorsIsRefused) {
  // The pair lists come from the operator's configured scanner: a sensitivity asked for another
  // scanner's crystals is an error that names both counts, not a wrong image.
  const Scanner sc{.rings = 2, .crystals = 40}, other{.rings = 3, .crystals = 40};
  const ImageBox box{.n = {4, 4, 2}};
  auto op = BackendRegistry<ListModeOperator>::instance().create("cpu");
  op->configure(sc, box, {});
  const std::string m = test::message_of([&] { compute_sensitivity(*op, other, box, SensitivityMode::all_pairs); });
  EXPECT_NE(m.find("120 crystals"), std::string::npos) << m;
  EXPECT_NE(m.find("configured with 80"), std::string::npos) << m;
}

}  // namespace
}  // namespace tomo::safir
