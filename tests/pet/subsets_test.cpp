// Subset partitions and orders of the reconstruction layer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "compute/pet/subsets.hpp"

namespace tomo::pet {

TEST(Subsets, SequenceOrders) {
  EXPECT_EQ(subset_sequence(4, SubsetOrder::sequential, 1, 1), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(subset_sequence(8, SubsetOrder::bit_reversed, 1, 1), (std::vector<int>{0, 4, 2, 6, 1, 5, 3, 7}));
  EXPECT_EQ(subset_sequence(6, SubsetOrder::bit_reversed, 1, 1), (std::vector<int>{0, 4, 2, 1, 5, 3}));
  const auto r1 = subset_sequence(8, SubsetOrder::random, 5, 1), r2 = subset_sequence(8, SubsetOrder::random, 5, 2);
  EXPECT_EQ(r1, subset_sequence(8, SubsetOrder::random, 5, 1));  // same seed and iteration: same order
  EXPECT_NE(r1, r2);                                              // a new permutation each iteration
  auto sorted = r1;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, subset_sequence(8, SubsetOrder::sequential, 1, 1));
}

TEST(Subsets, EventsInterleaveInAcquisitionOrder) {
  const InterleavedSubsets s = interleave_events(10, 3);
  EXPECT_EQ(s.order, (std::vector<std::size_t>{0, 3, 6, 9, 1, 4, 7, 2, 5, 8}));
  EXPECT_EQ(s.starts, (std::vector<std::size_t>{0, 4, 7, 10}));
}

TEST(Subsets, AngularSubsetsAreBalancedAndInterleaved) {
  // 64 LORs over the half turn in two groups: 4 subsets of 16, each in 4 sectors π/4 apart.
  std::vector<double> phi;
  std::vector<int> group;
  for (int i = 0; i < 64; ++i) phi.push_back(M_PI * ((i * 37) % 64) / 64.0), group.push_back(i % 2);
  const std::vector<int> s = angular_subsets(phi, group, 4);
  std::vector<int> count(4, 0);
  for (int v : s) ++count[v];
  EXPECT_EQ(count, (std::vector<int>{16, 16, 16, 16}));
  for (int i = 0; i < 64; ++i) {
    const int rank = (i * 37) % 64;  // the LOR's rank by angle
    EXPECT_EQ(s[i], (rank / 4) % 4) << i;
  }
}

}  // namespace tomo::pet
