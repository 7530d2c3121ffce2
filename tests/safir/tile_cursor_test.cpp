// The tiled pass's walk over a tile's voxels (cuda/safir/tile_cursor.hpp: adds and carries) against
// the division form it replaced, on the host: every thread of a block visits the same local and
// image indices, and the threads together visit each tile voxel once.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "cuda/safir/tile_cursor.hpp"

namespace tomo::safir::cuda_impl {
namespace {

struct Visit {
  int local;
  std::size_t image;
  bool operator==(const Visit&) const = default;
};

// local index i → image index by three divisions, as the kernels computed it before.
std::size_t divided(int i, const int lo[3], const int hi[3], const int n[3]) {
  const int w0 = hi[0] - lo[0], w1 = hi[1] - lo[1];
  const int x = lo[0] + i % w0, y = lo[1] + (i / w0) % w1, z = lo[2] + i / (w0 * w1);
  return std::size_t(x) + std::size_t(n[0]) * (std::size_t(y) + std::size_t(n[1]) * std::size_t(z));
}

void expect_same_walk(const int lo[3], const int hi[3], const int n[3], int threads) {
  const int size = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
  std::vector<int> seen(size, 0);
  for (int t = 0; t < threads; ++t) {
    std::vector<Visit> got, want;
    for_tile_voxels(t, threads, lo, hi, n, [&](int i, std::size_t j) { got.push_back({i, j}); });
    for (int i = t; i < size; i += threads) want.push_back({i, divided(i, lo, hi, n)});
    ASSERT_EQ(got, want) << "thread " << t << " of " << threads << ", tile [" << lo[0] << ".." << hi[0] << ", " << lo[1]
                         << ".." << hi[1] << ", " << lo[2] << ".." << hi[2] << ")";
    for (const Visit& v : got) ++seen[v.local];
  }
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
}

TEST(SafirTileCursor, MatchesTheDivisionFormOnTheDefaultTiles) {
  // The default image (90 × 90 × 50) with the tiles of the H200's plan: 6 x-planes, 6 y-planes,
  // 3 z-planes (and the last, shorter z tile), 512 threads a block.
  const int n[3] = {90, 90, 50};
  const int lo_x[3] = {84, 0, 0}, hi_x[3] = {90, 90, 50};
  const int lo_y[3] = {0, 6, 0}, hi_y[3] = {90, 12, 50};
  const int lo_z[3] = {0, 0, 48}, hi_z[3] = {90, 90, 50};
  expect_same_walk(lo_x, hi_x, n, 512);
  expect_same_walk(lo_y, hi_y, n, 512);
  expect_same_walk(lo_z, hi_z, n, 512);
}

TEST(SafirTileCursor, MatchesTheDivisionFormWhereAStepSpansRowsAndPlanes) {
  // Steps shorter than a row, longer than a plane, and tiles of one voxel along an axis.
  const int n[3] = {37, 23, 19};
  const int tiles[][6] = {{0, 0, 0, 37, 23, 19}, {5, 3, 2, 12, 4, 19}, {36, 0, 0, 37, 23, 19}, {0, 22, 18, 37, 23, 19},
                          {10, 10, 10, 11, 11, 11}, {1, 2, 3, 30, 20, 4}};
  for (const auto& t : tiles)
    for (int threads : {1, 3, 7, 32, 100, 256, 512, 1000, 20000}) {
      const int lo[3] = {t[0], t[1], t[2]}, hi[3] = {t[3], t[4], t[5]};
      expect_same_walk(lo, hi, n, threads);
    }
}

}  // namespace
}  // namespace tomo::safir::cuda_impl
