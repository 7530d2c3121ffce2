// The demo voxelizer's compute pass binds its buffer and image where renderer/demo/bindings.hpp
// says (the C++ side binds there): read back from the linked program.
#include <gtest/gtest.h>

#include "renderer/demo/bindings.hpp"
#include "renderer/gl/engine.hpp"
#include "tests/support/gl_introspection.hpp"
#include "tests/support/gl_test.hpp"

using namespace tomo;

namespace {

using test::block_binding;
using test::unit_of;

constexpr GLenum kSsbo = GL_SHADER_STORAGE_BLOCK;

}  // namespace

TEST(GlBindingsDemo, VoxelizerBindsWhereTheBackendBinds) {
  test::gl_context();
  const gl::Program& p = gl::shaders().compute("demo/voxelize.comp.glsl");
  EXPECT_EQ(block_binding(p, kSsbo, "Shapes"), GLint(demo::binding::kShapes));
  EXPECT_EQ(unit_of(p, "volume"), GLint(demo::binding::kVolume));
}
