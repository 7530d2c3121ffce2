// The gather's fixed-point sums (cuda/oat/srt_gather.hpp fixed_split / fixed_high_add / fixed_join
// / fixed_scale, the arithmetic of the CUDA kernel's FixedAdd) on the host: a voxel's two 32-bit
// words end at the exact sum of its terms in any order of the adds, and the scale keeps the worst
// sum a scene allows below 2^63.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "cuda/oat/srt_gather.hpp"

namespace tomo::oat::test {
namespace {

// The kernel's adds in the given order: the low word first (its old value gives the carry), then
// the high word.
long long add_all(const std::vector<long long>& terms) {
  unsigned lo = 0;
  int hi = 0;
  for (long long v : terms) {
    const FixedTerm t = fixed_split(v);
    const unsigned old = lo;
    lo += t.lo;
    hi += fixed_high_add(t, old);
  }
  return fixed_join(lo, hi);
}

TEST(OatGatherFixedSum, ExactInEveryOrder) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::uniform_int_distribution<int> e(-30, 0);
  std::vector<float> v(20000);
  double abs_sum = 0;
  for (float& x : v) {
    x = std::ldexp(u(rng), e(rng));  // signs and magnitudes over nine decades
    abs_sum += std::abs(x);
  }
  const float s = fixed_scale(abs_sum, 1.0 / std::sqrt(4.0 * kPi<double>));  // B = Σ|v|: the tightest bound
  std::vector<long long> terms;
  long long exact = 0;
  double sum = 0;
  for (float x : v) {
    terms.push_back(std::llrint(static_cast<double>(x * s)));
    exact += terms.back();
    sum += x;
  }
  for (int order = 0; order < 4; ++order) {
    EXPECT_EQ(add_all(terms), exact) << "order " << order;
    std::shuffle(terms.begin(), terms.end(), rng);
  }
  // Back in units of v: the rounding of each term (≤ ½) and of v·S in float (2^-24 relative).
  EXPECT_NEAR(static_cast<double>(exact) / s, sum, 1e-6 * abs_sum);
  EXPECT_GT(std::abs(sum), 1e-3);
}

TEST(OatGatherFixedSum, NegativeSumsAndCarriesBothWays) {
  const std::vector<long long> terms = {-1, -1, 0xffffffffLL, 1, -(1LL << 40), (1LL << 33) + 5, -7};
  long long exact = 0;
  for (long long v : terms) exact += v;
  EXPECT_EQ(add_all(terms), exact);
  EXPECT_EQ(add_all({-1}), -1);
  EXPECT_EQ(add_all({0xffffffffLL, 1}), 1LL << 32);
}

// The worst voxel of a scene: every |term| at its bound, one sign; B = Σ|g|·4πR² allows no more.
TEST(OatGatherFixedSum, ScaleKeepsTheWorstSumBelowTwoToThe63) {
  for (double abs_sum : {1e-20, 1.0, 3.3e6, 1e30}) {
    const double r = 80.0;
    const double b = abs_sum * 4.0 * kPi<double> * r * r;
    const double s = fixed_scale(abs_sum, r);
    EXPECT_GT(s, 0.0);
    EXPECT_LT(b * s, 0x1p63) << abs_sum;
  }
  for (double abs_sum : {1e-3, 7.0, 3.3e6}) {  // a power of two, within a factor 2 of 2^62/B
    const double s = fixed_scale(abs_sum, 80.0), b = abs_sum * 4.0 * kPi<double> * 6400.0;
    int e = 0;
    EXPECT_EQ(std::frexp(s, &e), 0.5) << abs_sum;
    EXPECT_GT(b * s, 0x1p61) << abs_sum;
  }
  EXPECT_FLOAT_EQ(fixed_scale(0.0, 80.0), 1.0f);  // no data: any finite scale
  EXPECT_LE(fixed_scale(1e-60, 1.0), 1e30f);      // tiny data: a float scale, coarser sums
}

}  // namespace
}  // namespace tomo::oat::test
