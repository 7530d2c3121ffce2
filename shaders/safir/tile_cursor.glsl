// safir's tiled pass: the voxels of a group's tile, local indices first, first + step, ... (x
// fastest, as in the image) with their image indices kept by adds and two carries instead of
// three integer divisions per voxel (a group loads and flushes its whole tile). The twin of
// cuda/safir/tile_cursor.hpp.
struct TileCursor {
  int x, y, w0, w1, sx, sy;
  uint g, dg, row, plane;
};

TileCursor tile_cursor(int first, int step, ivec3 lo, ivec3 hi, ivec3 n) {
  TileCursor c;
  c.w0 = max(hi.x - lo.x, 1);  // groups beyond the grid have empty tiles: no division by 0
  c.w1 = max(hi.y - lo.y, 1);
  c.x = first % c.w0;
  c.y = (first / c.w0) % c.w1;
  int z = first / (c.w0 * c.w1);
  c.sx = step % c.w0;  // sx < w0 and sy < w1: at most one carry each
  c.sy = (step / c.w0) % c.w1;
  int sz = step / (c.w0 * c.w1);
  c.row = uint(n.x);
  c.plane = uint(n.x) * uint(n.y);
  c.g = uint(lo.x + c.x) + c.row * uint(lo.y + c.y) + c.plane * uint(lo.z + z);
  c.dg = uint(c.sx) + c.row * uint(c.sy) + c.plane * uint(sz);
  return c;
}

void tile_cursor_next(inout TileCursor c) {
  c.x += c.sx;
  c.y += c.sy;
  c.g += c.dg;
  if (c.x >= c.w0) {  // the next row
    c.x -= c.w0;
    c.y += 1;
    c.g += c.row - uint(c.w0);
  }
  if (c.y >= c.w1) {  // the next plane
    c.y -= c.w1;
    c.g += c.plane - c.row * uint(c.w1);
  }
}
