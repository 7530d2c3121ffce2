// The strip GL compute passes bind their buffers where renderer/strip/bindings.hpp says (the
// C++ side binds there): read back from the linked programs.
#include <gtest/gtest.h>

#include "renderer/gl/engine.hpp"
#include "renderer/strip/bindings.hpp"
#include "tests/support/gl_test.hpp"

using namespace tomo;

namespace {

// The binding of `block` (a buffer or uniform block) in the linked program; -1 when inactive.
GLint block_binding(const gl::Program& p, GLenum interface, const char* block) {
  const GLuint index = glGetProgramResourceIndex(p.id(), interface, block);
  EXPECT_NE(index, GL_INVALID_INDEX) << p.name() << ": no active block " << block;
  if (index == GL_INVALID_INDEX) return -1;
  const GLenum prop = GL_BUFFER_BINDING;
  GLint binding = -1;
  glGetProgramResourceiv(p.id(), interface, index, 1, &prop, 1, nullptr, &binding);
  return binding;
}

// The unit a sampler or image uniform reads (its value, set by the shader's layout binding).
GLint unit_of(const gl::Program& p, const char* uniform) {
  const GLint loc = glGetUniformLocation(p.id(), uniform);
  EXPECT_GE(loc, 0) << p.name() << ": no active uniform " << uniform;
  GLint unit = -1;
  if (loc >= 0) glGetUniformiv(p.id(), loc, &unit);
  return unit;
}

constexpr GLenum kSsbo = GL_SHADER_STORAGE_BLOCK;

}  // namespace

TEST(GlBindingsStrip, PassesBindWhereTheProjectorBinds) {
  test::gl_context();
  namespace b = strip::binding;
  for (const char* iteration : {"strip/mlem_thread.comp.glsl", "strip/mlem_warp.comp.glsl"}) {
    const gl::Program& p = gl::shaders().compute(iteration);
    EXPECT_EQ(block_binding(p, kSsbo, "Events"), GLint(b::kEvents)) << iteration;
    EXPECT_EQ(block_binding(p, kSsbo, "Rho"), GLint(b::kRho)) << iteration;
    EXPECT_EQ(block_binding(p, kSsbo, "FloatAddTarget"), GLint(b::kRhoNew)) << iteration;
  }
  const gl::Program& forward = gl::shaders().compute("strip/project.comp.glsl", {{"FORWARD", "1"}});
  EXPECT_EQ(block_binding(forward, kSsbo, "Events"), GLint(b::kEvents));
  EXPECT_EQ(block_binding(forward, kSsbo, "Rho"), GLint(b::kRho));
  EXPECT_EQ(block_binding(forward, kSsbo, "Values"), GLint(b::kValues));
  const gl::Program& back = gl::shaders().compute("strip/project.comp.glsl");
  EXPECT_EQ(block_binding(back, kSsbo, "FloatAddTarget"), GLint(b::kRhoNew));
  EXPECT_EQ(block_binding(back, kSsbo, "Values"), GLint(b::kValues));
}
