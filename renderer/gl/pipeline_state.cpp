#include "renderer/gl/pipeline_state.hpp"

#include "renderer/gl/gl.hpp"

namespace tomo::gl {
namespace {
void enable(GLenum cap, bool on) {
  if (on) TOMO_GL_CHECK(glEnable(cap));
  else TOMO_GL_CHECK(glDisable(cap));
}
}  // namespace

void apply(const PipelineState& state) {
  enable(GL_BLEND, state.blend != Blend::Off);
  if (state.blend == Blend::Add) {
    TOMO_GL_CHECK(glBlendEquation(GL_FUNC_ADD));
    TOMO_GL_CHECK(glBlendFunc(GL_ONE, GL_ONE));
  }
  enable(GL_DEPTH_TEST, state.depth_test);
  enable(GL_CULL_FACE, state.cull_face);
  enable(GL_SCISSOR_TEST, state.scissor_test);
}

}  // namespace tomo::gl
