// The viewer's passes bind their buffers and sampler where renderer/viewer/bindings.hpp says
// (the C++ side binds there): read back from the linked programs.
#include <gtest/gtest.h>

#include "renderer/gl/engine.hpp"
#include "renderer/viewer/bindings.hpp"
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

const gl::Program& quad(const char* frag) {
  return gl::shaders().program({{gl::Stage::Vertex, "viewer/quad.vert.glsl"}, {gl::Stage::Fragment, frag}});
}

}  // namespace

TEST(GlBindingsViewer, PassesBindWhereTheViewsBind) {
  test::gl_context();
  namespace b = viewer::binding;
  const gl::Program& atlas = quad("viewer/atlas.frag.glsl");
  EXPECT_EQ(block_binding(atlas, kSsbo, "Measured"), GLint(b::kMeasured));
  EXPECT_EQ(block_binding(atlas, kSsbo, "Estimated"), GLint(b::kEstimated));
  EXPECT_EQ(block_binding(atlas, kSsbo, "Stats"), GLint(b::kAtlasStats));
  const gl::Program& volume = quad("viewer/volume.frag.glsl");
  EXPECT_EQ(block_binding(volume, kSsbo, "Image"), GLint(b::kData));
  EXPECT_EQ(block_binding(volume, kSsbo, "Stats"), GLint(b::kStats));
  EXPECT_EQ(unit_of(quad("viewer/correspondence.frag.glsl"), "u_corr"), GLint(b::kCorrespondence));
  const gl::Program& max = gl::shaders().compute("viewer/max.comp.glsl");
  EXPECT_EQ(block_binding(max, kSsbo, "Data"), GLint(b::kData));
  EXPECT_EQ(block_binding(max, kSsbo, "Stats"), GLint(b::kStats));
}
