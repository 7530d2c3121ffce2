// The viewer's passes bind their buffers and sampler where renderer/viewer/bindings.hpp says
// (the C++ side binds there): read back from the linked programs.
#include <gtest/gtest.h>

#include "renderer/gl/engine.hpp"
#include "renderer/viewer/bindings.hpp"
#include "tests/support/gl_introspection.hpp"
#include "tests/support/gl_test.hpp"

using namespace tomo;

namespace {

using test::block_binding;
using test::unit_of;

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
