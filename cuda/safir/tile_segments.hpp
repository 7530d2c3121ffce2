// Equal-work blocks for the tiled safir pass over a small window (an OSEM subset): the pass's
// visits (event × tile of its label, label by label, tile by tile, events fastest) are cut into
// `blocks` contiguous runs of equal length, one per block, instead of chunks of one tile each.
// A window of one wave of chunks ends when its longest chunk does (a label's last chunk is
// partial, a label's chunk count is whole); equal runs end together. A run that crosses a tile
// or label boundary is two or more pieces, each with its own tile load and flush.
#pragma once
#include "compute/core/host_device.hpp"
#include "compute/safir/kernel_math.hpp"

namespace tomo::safir::cuda_impl {

// One piece of a block's run: label index l (0..2 for x, y, z), tile number within the label
// (x fastest, as TilePlan numbers them) and the sorted events [e0, e1).
struct TilePiece {
  int l = 0, tile = 0;
  unsigned long long e0 = 0, e1 = 0;
};

TOMO_HD unsigned long long label_tile_count(const LabelTiles& t) {
  return static_cast<unsigned long long>(t.tiles[0]) * t.tiles[1] * t.tiles[2];
}

TOMO_HD unsigned long long plan_visits(const TilePlan& p) {
  unsigned long long v = 0;
  for (int l = 0; l < 3; ++l) v += (p.label[l].end - p.label[l].begin) * label_tile_count(p.label[l]);
  return v;
}

// Visits [v0, v1) of block b of `blocks` (equal shares, the first ones one longer where the
// visits do not divide).
TOMO_HD void segment_range(unsigned long long visits, int b, int blocks, unsigned long long& v0, unsigned long long& v1) {
  const unsigned long long n = static_cast<unsigned long long>(blocks), q = visits / n, r = visits % n;
  const unsigned long long i = static_cast<unsigned long long>(b);
  v0 = i * q + (i < r ? i : r);
  v1 = v0 + q + (i < r ? 1 : 0);
}

// The piece that starts at visit v and ends at most at v_end (v < v_end <= plan_visits(p)).
TOMO_HD TilePiece piece_at(const TilePlan& p, unsigned long long v, unsigned long long v_end) {
  TilePiece k;
  int l = 0;
  for (; l < 2; ++l) {
    const unsigned long long lv = (p.label[l].end - p.label[l].begin) * label_tile_count(p.label[l]);
    if (v < lv) break;
    v -= lv;
    v_end -= lv;
  }
  const LabelTiles& t = p.label[l];
  const unsigned long long events = t.end - t.begin, tile = v / events, e = v % events;
  const unsigned long long left = v_end - v, here = events - e;
  k.l = l;
  k.tile = static_cast<int>(tile);
  k.e0 = t.begin + e;
  k.e1 = k.e0 + (left < here ? left : here);
  return k;
}

}  // namespace tomo::safir::cuda_impl
