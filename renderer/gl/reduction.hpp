// Mip-reduction by repeated halving ([Toth2010] §IV): level k+1 of an RGBA32F 2D-array
// texture becomes the 2×2 sums of level k, for all layers in one instanced draw per
// level, until 1×1. The top level then holds each layer's total.
#pragma once
#include <vector>

#include "renderer/gl/objects.hpp"

namespace tomo::gl {

// Number of levels a texture of this size needs to reach 1×1.
int reduction_levels(int width, int height);

class HalvingReducer {
 public:
  HalvingReducer();
  // `tex`: GL_TEXTURE_2D_ARRAY, GL_RGBA32F, reduction_levels() levels, level 0 filled.
  void reduce(const Texture& tex, int first_layer = 0, int layer_count = -1);
  // Reads the 1×1 top level: 4 floats per layer.
  static std::vector<float> read_totals(const Texture& tex);

 private:
  Framebuffer fbo_;
  VertexArray vao_;
};

}  // namespace tomo::gl
