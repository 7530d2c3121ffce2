// The fdk GL passes bind their buffers, blocks and samplers where renderer/fdk/bindings.hpp
// says (the C++ side binds there): read back from the linked programs.
#include <gtest/gtest.h>

#include "renderer/fdk/bindings.hpp"
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

TEST(GlBindingsFdk, PassesBindWhereTheBackprojectorsBind) {
  test::gl_context();
  namespace b = fdk::binding;
  for (const gl::Defines& defines : {gl::Defines{}, gl::Defines{{"EXACT", "1"}}}) {
    const gl::Program& compute = gl::shaders().compute("fdk/backproject.comp.glsl", defines);
    EXPECT_EQ(block_binding(compute, kSsbo, "Volume"), GLint(b::kVolume));
    EXPECT_EQ(block_binding(compute, kSsbo, "Matrices"), GLint(b::kMatrices));
    EXPECT_EQ(unit_of(compute, "u_projections"), GLint(b::kProjections));
    const gl::Program& raster = gl::layered_program("fdk/backproject_raster.frag.glsl", defines);
    EXPECT_EQ(block_binding(raster, GL_UNIFORM_BLOCK, "Matrices"), GLint(b::kMatrixRows));
    EXPECT_EQ(unit_of(raster, "u_projections"), GLint(b::kProjections));
  }
}
