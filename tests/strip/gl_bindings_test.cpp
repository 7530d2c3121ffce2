// The strip GL compute passes bind their buffers where renderer/strip/bindings.hpp says (the
// C++ side binds there): read back from the linked programs.
#include <gtest/gtest.h>

#include "renderer/gl/engine.hpp"
#include "renderer/strip/bindings.hpp"
#include "tests/support/gl_introspection.hpp"
#include "tests/support/gl_test.hpp"

using namespace tomo;

namespace {

using test::block_binding;

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
