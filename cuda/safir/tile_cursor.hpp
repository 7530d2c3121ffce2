// The voxels of one image tile as a tiled-pass block loads and flushes them: local indices
// first, first + step, ... of the tile [lo, hi) (x fastest, as in the image) with their image
// indices, kept by adds and two carries instead of three integer divisions per voxel. A block
// loads or flushes its whole tile (tens of thousands of voxels) once; with the divisions that
// was tens of microseconds of issue slots per block (tiled_pass.cu). Host and device (tested on
// the host against the division form).
#pragma once
#include <cstddef>

#include "compute/core/host_device.hpp"

namespace tomo::safir::cuda_impl {

// visit(i, image index) for local index i = first, first + step, ... below the tile's size.
// n: the image's voxels per axis; lo, hi: the tile's voxel range per axis (hi > lo).
template <class F>
TOMO_HD void for_tile_voxels(int first, int step, const int lo[3], const int hi[3], const int n[3], F&& visit) {
  const int w0 = hi[0] - lo[0], w1 = hi[1] - lo[1], size = w0 * w1 * (hi[2] - lo[2]);
  if (first >= size) return;
  // Coordinates of the first voxel and of one step (sx < w0 and sy < w1: at most one carry each).
  int x = first % w0, y = (first / w0) % w1;
  const int z = first / (w0 * w1);  // the plane needs no count: i < size ends the walk
  const int sx = step % w0, sy = (step / w0) % w1, sz = step / (w0 * w1);
  const std::size_t row = std::size_t(n[0]), plane = row * std::size_t(n[1]);
  std::size_t g = std::size_t(lo[0] + x) + row * std::size_t(lo[1] + y) + plane * std::size_t(lo[2] + z);
  const std::size_t dg = std::size_t(sx) + row * std::size_t(sy) + plane * std::size_t(sz);
  for (int i = first; i < size; i += step) {
    visit(i, g);
    x += sx;
    y += sy;
    g += dg;
    if (x >= w0) {  // the next row
      x -= w0;
      ++y;
      g += row - std::size_t(w0);
    }
    if (y >= w1) {  // the next plane
      y -= w1;
      g += plane - row * std::size_t(w1);
    }
  }
}

}  // namespace tomo::safir::cuda_impl
