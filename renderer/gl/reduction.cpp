#include "renderer/gl/reduction.hpp"

#include <algorithm>

#include "renderer/gl/bindings.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/gl/pipeline_state.hpp"
#include "renderer/gl/uniform.hpp"

namespace tomo::gl {
namespace {

// common/halve_sum.frag.glsl on the layered triangle.
struct HalveSumPass {
  static constexpr PipelineState kState{};
  const Program& program;
  Uniform<int> first_layer;
  Uniform<Vec2i> src_size, dst_size;
  explicit HalveSumPass(const Program& p)
      : program(p), first_layer(p, "u_first_layer"), src_size(p, "u_src_size"), dst_size(p, "u_dst_size") {}
};

}  // namespace

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
  const auto& pass = layered_pass<HalveSumPass>("common/halve_sum.frag.glsl");
  pass.program.use();
  pass.first_layer.set(first_layer);
  vao_.bind();
  fbo_.bind();
  apply(HalveSumPass::kState);
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
    TOMO_GL_CHECK(glBindTextureUnit(binding::kHalveSource, view.id()));
    fbo_.attach(GL_COLOR_ATTACHMENT0, tex, level + 1);
    fbo_.set_draw_buffers(1);
    fbo_.check_complete();
    pass.src_size.set({w, h});
    w = std::max(1, w / 2);
    h = std::max(1, h / 2);
    pass.dst_size.set({w, h});
    TOMO_GL_CHECK(glViewport(0, 0, w, h));
    TOMO_GL_CHECK(glDrawArraysInstanced(GL_TRIANGLES, 0, 3, layer_count));
  }
  TOMO_GL_CHECK(glBindFramebuffer(GL_FRAMEBUFFER, 0));
}

std::vector<float> HalvingReducer::read_totals(const Texture& tex) {
  return tex.read_float(4, tex.levels() - 1);
}

}  // namespace tomo::gl
