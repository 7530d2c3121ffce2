#include "renderer/gl/grid_block.hpp"

namespace tomo::gl {
namespace {

// std140: each vec3/ivec3 takes a 16-byte slot.
struct GridStd140 {
  float origin[4];
  float voxel[4];
  float inv_voxel[4];
  int dims[4];
};
static_assert(sizeof(GridStd140) == 64);

}  // namespace

void GridBlock::bind(const Grid3& grid) {
  GridStd140 block{};
  for (int a = 0; a < 3; ++a) {
    block.origin[a] = static_cast<float>(grid.origin_mm[a]);
    block.voxel[a] = static_cast<float>(grid.voxel_mm[a]);
    block.inv_voxel[a] = static_cast<float>(1.0 / grid.voxel_mm[a]);
    block.dims[a] = grid.dims[a];
  }
  if (!buffer_) buffer_ = Buffer(sizeof(block), &block);
  else buffer_.upload(&block, sizeof(block));
  buffer_.bind_base(GL_UNIFORM_BUFFER, binding::kGridBlock);
}

}  // namespace tomo::gl
