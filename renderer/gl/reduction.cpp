#include "renderer/gl/reduction.hpp"

#include <algorithm>

#include "renderer/gl/engine.hpp"

namespace tomo::gl {

int reduction_levels(int width, int height) {
  // GL's full mip chain: sizes halve rounding down, floor(log2(max)) + 1 levels.
  int levels = 1;
  for (int m = std::max(width, height); m > 1; m >>= 1) ++levels;
  return levels;
}

HalvingReducer::HalvingReducer()
    : fbo_(Framebuffer::create()), vao_(VertexArray::create()) {}

void HalvingReducer::reduce(const Texture& tex, int first_layer, int layer_count) {
  if (layer_count < 0) layer_count = tex.depth() - first_layer;
  const Program& prog = layered_program("common/halve_sum.frag.glsl");
  prog.use();
  prog.set("u_first_layer", first_layer);
  prog.set("u_src", 0);
  vao_.bind();
  fbo_.bind();
  TOMO_GL_CHECK(glDisable(GL_BLEND));
  TOMO_GL_CHECK(glDisable(GL_DEPTH_TEST));
  int w = tex.width(), h = tex.height();
  for (int level = 0; level + 1 < tex.levels() && (w > 1 || h > 1); ++level) {
    // A single-level view of the source level: sampling it never touches the level
    // being rendered, so there is no feedback loop.
    Texture view;
    {
      GLuint id = 0;
      TOMO_GL_CHECK(glGenTextures(1, &id));
      TOMO_GL_CHECK(glTextureView(id, GL_TEXTURE_2D_ARRAY, tex.id(), GL_RGBA32F, static_cast<GLuint>(level), 1, 0,
                                  static_cast<GLuint>(tex.depth())));
      view = Texture::wrap(id, GL_TEXTURE_2D_ARRAY, GL_RGBA32F, {w, h, tex.depth()});
    }
    view.set_filter(GL_NEAREST, GL_NEAREST);
    TOMO_GL_CHECK(glBindTextureUnit(0, view.id()));
    fbo_.attach(GL_COLOR_ATTACHMENT0, tex, level + 1);
    fbo_.set_draw_buffers(1);
    fbo_.check_complete();
    prog.set("u_src_size", w, h);
    w = std::max(1, w / 2);
    h = std::max(1, h / 2);
    prog.set("u_dst_size", w, h);
    TOMO_GL_CHECK(glViewport(0, 0, w, h));
    TOMO_GL_CHECK(glDrawArraysInstanced(GL_TRIANGLES, 0, 3, layer_count));
  }
  TOMO_GL_CHECK(glBindFramebuffer(GL_FRAMEBUFFER, 0));
}

std::vector<float> HalvingReducer::read_totals(const Texture& tex) {
  return tex.read_float(4, tex.levels() - 1);
}

}  // namespace tomo::gl
