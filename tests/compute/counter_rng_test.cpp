// CounterRng: Philox4x32-10's published known-answer vectors through the wrapper, the draws'
// order and range, and independent streams.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "compute/core/counter_rng.hpp"

namespace {

TEST(CounterRng, PhiloxKnownAnswers) {
  // Random123's kat_vectors: philox4x32-10 with counter and key all zeros, and all ones.
  tomo::CounterRng zero(0, 0);
  const std::uint32_t want0[4] = {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u};
  for (std::uint32_t w : want0) EXPECT_EQ(zero.next32(), w);
  tomo::CounterRng::Philox::ctr_type c = {{~0u, ~0u, ~0u, ~0u}};
  tomo::CounterRng::Philox::key_type k = {{~0u, ~0u}};
  const auto r = tomo::CounterRng::Philox()(c, k);
  EXPECT_EQ(r[0], 0x408f276du);
  EXPECT_EQ(r[3], 0x6d5451fdu);
}

TEST(CounterRng, BlocksFollowTheCounterAndStreamsDiffer) {
  tomo::CounterRng a(7, 3), b(7, 3), other(7, 4), reseeded(8, 3);
  for (int i = 0; i < 4; ++i) (void)b.next32();  // b now at block 1
  tomo::CounterRng::Philox::ctr_type c = {{3u, 0u, 1u, 0u}};
  tomo::CounterRng::Philox::key_type k = {{7u, 0u}};
  const auto block1 = tomo::CounterRng::Philox()(c, k);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(b.next32(), block1[std::uint32_t(i)]);
  int same_stream = 0, same_seed = 0;
  tomo::CounterRng a2(7, 3);
  for (int i = 0; i < 64; ++i) {
    const std::uint32_t x = a2.next32();
    same_stream += x == other.next32();
    same_seed += x == reseeded.next32();
  }
  EXPECT_LE(same_stream, 1);
  EXPECT_LE(same_seed, 1);
  (void)a;
}

TEST(CounterRng, UniformDrawsFillTheUnitInterval) {
  tomo::CounterRng r(12345, 0);
  const int n = 1 << 20;
  double sum = 0, sum2 = 0, lo = 1, hi = 0;
  for (int i = 0; i < n; ++i) {
    const double u = r.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u, sum2 += u * u, lo = std::min(lo, u), hi = std::max(hi, u);
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(1.0 / 12 / n));
  EXPECT_NEAR(var, 1.0 / 12, 1e-3);
  EXPECT_LT(lo, 1e-5);
  EXPECT_GT(hi, 1 - 1e-5);
  float f = tomo::CounterRng(1, 1).uniformf();
  EXPECT_GE(f, 0.0f);
  EXPECT_LT(f, 1.0f);
}

// A stream started at Philox block j gives the draws that sequential draws reach after 4·j words
// (two uniforms a block), so threads can split one stream's draws between them.
TEST(CounterRng, StartingAtABlockContinuesTheSequentialDraws) {
  tomo::CounterRng all(77, 5);
  std::vector<double> seq;
  for (int i = 0; i < 40; ++i) seq.push_back(all.uniform());
  for (std::uint32_t j = 0; j < 20; ++j) {
    tomo::CounterRng from(77, 5, j);
    EXPECT_EQ(from.uniform(), seq[2 * j]) << "block " << j;
    EXPECT_EQ(from.uniform(), seq[2 * j + 1]) << "block " << j;
  }
  EXPECT_NE(tomo::CounterRng(77, 6, 3).uniform(), seq[6]);  // another stream
}

}  // namespace
