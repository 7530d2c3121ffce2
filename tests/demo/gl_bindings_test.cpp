// The demo voxelizer's compute pass binds its buffer and image where renderer/demo/bindings.hpp
// says (the C++ side binds there): read back from the linked program.
#include <gtest/gtest.h>

#include "renderer/demo/bindings.hpp"
#include "renderer/gl/engine.hpp"
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

TEST(GlBindingsDemo, VoxelizerBindsWhereTheBackendBinds) {
  test::gl_context();
  const gl::Program& p = gl::shaders().compute("demo/voxelize.comp.glsl");
  EXPECT_EQ(block_binding(p, kSsbo, "Shapes"), GLint(demo::binding::kShapes));
  EXPECT_EQ(unit_of(p, "volume"), GLint(demo::binding::kVolume));
}
