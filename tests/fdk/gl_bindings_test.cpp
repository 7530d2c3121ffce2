// The fdk GL passes bind their buffers, blocks and samplers where renderer/fdk/bindings.hpp
// says (the C++ side binds there): read back from the linked programs.
#include <gtest/gtest.h>

#include "renderer/fdk/bindings.hpp"
#include "renderer/gl/engine.hpp"
#include "tests/support/gl_introspection.hpp"
#include "tests/support/gl_test.hpp"

using namespace tomo;

namespace {

using test::block_binding;
using test::unit_of;

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
