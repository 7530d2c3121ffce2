// The uniform buffer behind shaders/common/grid.glsl: a Grid3 in fp32 std140 layout, bound at
// the block's fixed binding so every pass reads the grid under the same names.
#pragma once
#include "compute/core/volume.hpp"
#include "renderer/gl/bindings.hpp"
#include "renderer/gl/objects.hpp"

namespace tomo::gl {

class GridBlock {
 public:
  // Writes `grid` into the buffer (made on first use) and binds it at binding::kGridBlock.
  void bind(const Grid3& grid);

 private:
  Buffer buffer_;
};

}  // namespace tomo::gl
