// FillVector (compute/core/fill_allocator.hpp): arrays from 2 MiB start on a 2 MiB boundary,
// values given to elements are kept through growth and copies, and touch_pages leaves an array
// usable as its maker fills it.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>

#include "compute/core/fill_allocator.hpp"

namespace tomo {
namespace {

TEST(FillVector, LargeArraysStartOnHugePageBoundaries) {
  FillVector<double> big(std::size_t(3) << 20);  // 24 MiB
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(big.data()) % FillAllocator<double>::kHugePage, 0u);
  touch_pages(big.data(), big.size() * sizeof(double));
  std::iota(big.begin(), big.end(), 0.0);
  EXPECT_EQ(big[12345], 12345.0);
  EXPECT_EQ(big.back(), double(big.size() - 1));
  FillVector<std::uint32_t> small(10, 7u);  // below 2 MiB: ordinary aligned storage
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(small.data()) % alignof(std::uint32_t), 0u);
  EXPECT_EQ(small[9], 7u);
}

TEST(FillVector, GivenValuesSurviveGrowthAndCopies) {
  FillVector<std::uint64_t> v;
  for (std::uint64_t i = 0; i < 600000; ++i) v.push_back(i * 3);  // grows through 2 MiB
  const FillVector<std::uint64_t> copy = v;
  ASSERT_EQ(copy.size(), 600000u);
  std::uint64_t sum = 0;
  for (std::uint64_t x : copy) sum += x;
  EXPECT_EQ(sum, 3 * (599999ull * 600000ull / 2));
  v.resize(10);  // shrinking keeps the first values
  v.resize(20);  // growing leaves the new ones to the maker: write them
  for (std::size_t i = 10; i < 20; ++i) v[i] = 1;
  EXPECT_EQ(v[9], 27u);
  EXPECT_EQ(v[19], 1u);
  const FillVector<int> list = {4, 5, 6};
  EXPECT_EQ(list[0] + list[1] + list[2], 15);
}

}  // namespace
}  // namespace tomo
