// The equal runs of the cuda tiled pass (cuda/safir/tile_segments.hpp), on the host: the pieces
// of all blocks visit every (label, tile, event) of a plan exactly once, each block's run is the
// same length to one visit, and a piece never leaves its label's events or its tile.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "compute/safir/kernel_math.hpp"
#include "cuda/safir/tile_segments.hpp"

namespace tomo::safir {
namespace {

using cuda_impl::piece_at;
using cuda_impl::plan_visits;
using cuda_impl::segment_range;
using cuda_impl::TilePiece;

struct Case {
  std::size_t counts[4];
  long long cap;
  int blocks;
};

TEST(SafirTileSegments, EveryVisitOnceAndRunsEqual) {
  const int n[3] = {90, 90, 50};
  const Case cases[] = {
      {{7, 41000, 39000, 2100}, 28000, 264},  // an eighth of the default bench's events, one wave
      {{0, 5, 0, 3}, 28000, 264},              // fewer visits than blocks: empty runs
      {{3, 0, 12345, 0}, 5000, 97},            // one label only, small tiles
      {{0, 1000, 1000, 1000}, 405000, 7},      // one tile per label
  };
  for (const Case& c : cases) {
    const TilePlan p = plan_tiles(n, c.counts, c.cap, 264.0, 1);
    const unsigned long long visits = plan_visits(p);
    unsigned long long expected = 0;
    for (int l = 0; l < 3; ++l)
      expected += c.counts[l + 1] * static_cast<unsigned long long>(p.label[l].tiles[0] * p.label[l].tiles[1] * p.label[l].tiles[2]);
    ASSERT_EQ(visits, expected);
    // seen[l][tile][event - begin]
    std::vector<std::vector<std::vector<int>>> seen(3);
    for (int l = 0; l < 3; ++l)
      seen[l].assign(p.label[l].tiles[0] * p.label[l].tiles[1] * p.label[l].tiles[2],
                     std::vector<int>(p.label[l].end - p.label[l].begin, 0));
    const unsigned long long shortest = visits / c.blocks, longest = shortest + (visits % c.blocks ? 1 : 0);
    unsigned long long next = 0;
    for (int b = 0; b < c.blocks; ++b) {
      unsigned long long v0, v1;
      segment_range(visits, b, c.blocks, v0, v1);
      EXPECT_EQ(v0, next) << "block " << b;  // runs are contiguous
      next = v1;
      EXPECT_GE(v1 - v0, shortest);
      EXPECT_LE(v1 - v0, longest);
      for (unsigned long long v = v0; v < v1;) {
        const TilePiece q = piece_at(p, v, v1);
        ASSERT_GE(q.l, 0);
        ASSERT_LT(q.l, 3);
        const LabelTiles& t = p.label[q.l];
        ASSERT_GE(q.e0, t.begin);
        ASSERT_LE(q.e1, t.end);
        ASSERT_LT(q.e0, q.e1);
        ASSERT_LT(q.tile, int(seen[q.l].size()));
        for (unsigned long long e = q.e0; e < q.e1; ++e) ++seen[q.l][q.tile][e - t.begin];
        v += q.e1 - q.e0;
      }
    }
    EXPECT_EQ(next, visits);
    for (int l = 0; l < 3; ++l)
      for (const auto& tile : seen[l])
        for (int s : tile) ASSERT_EQ(s, 1);
  }
}

// A block's run crosses at most as many tile boundaries as its length allows: with runs shorter
// than a label's events, at most two pieces.
TEST(SafirTileSegments, ShortRunsHaveAtMostTwoPieces) {
  const int n[3] = {90, 90, 50};
  const std::size_t counts[4] = {0, 40000, 40000, 40000};
  const TilePlan p = plan_tiles(n, counts, 28000, 264.0, 1);
  const unsigned long long visits = plan_visits(p);
  for (int b = 0; b < 264; ++b) {
    unsigned long long v0, v1;
    segment_range(visits, b, 264, v0, v1);
    int pieces = 0;
    for (unsigned long long v = v0; v < v1; ++pieces) {
      const TilePiece q = piece_at(p, v, v1);
      v += q.e1 - q.e0;
    }
    EXPECT_LE(pieces, 2) << "block " << b;
    EXPECT_GE(pieces, 1) << "block " << b;
  }
}

}  // namespace
}  // namespace tomo::safir
