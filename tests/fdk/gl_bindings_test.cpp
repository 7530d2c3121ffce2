// The fdk GL passes bind their buffers, blocks and samplers where renderer/fdk/bindings.hpp
// says (the C++ side binds there): read back from the linked programs.
#include <gtest/gtest.h>

#include "renderer/fdk/bindings.hpp"
#include "renderer/gl/bindings.hpp"
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

TEST(GlBindingsFdk, ProjectorPassesBindWhereTheProjectorsBind) {
  test::gl_context();
  namespace b = fdk::binding;
  const GLint grid_block = GLint(gl::binding::kGridBlock);
  for (const gl::Defines& defines : {gl::Defines{}, gl::Defines{{"FLOAT_ATOMICS", "1"}}}) {
    const gl::Program& back = gl::shaders().compute("fdk/back_project.comp.glsl", defines);
    EXPECT_EQ(block_binding(back, kSsbo, "FloatAddTarget"), GLint(b::kRayVolume));
    EXPECT_EQ(block_binding(back, kSsbo, "Projections"), GLint(b::kRayProjections));
    EXPECT_EQ(block_binding(back, kSsbo, "Rays"), GLint(b::kRays));
    EXPECT_EQ(block_binding(back, GL_UNIFORM_BLOCK, "GridBlock"), grid_block);
    const gl::Program& raster_back = gl::layered_program("fdk/back_project_raster.frag.glsl", defines);
    EXPECT_EQ(block_binding(raster_back, kSsbo, "FloatAddTarget"), GLint(b::kRayVolume));
    EXPECT_EQ(block_binding(raster_back, kSsbo, "Projections"), GLint(b::kRayProjections));
    EXPECT_EQ(block_binding(raster_back, kSsbo, "Rays"), GLint(b::kRays));
  }
  const gl::Program& forward = gl::shaders().compute("fdk/forward_project.comp.glsl");
  EXPECT_EQ(unit_of(forward, "u_volume"), GLint(b::kRayVolumeTexture));
  EXPECT_EQ(block_binding(forward, kSsbo, "Projections"), GLint(b::kRayProjections));
  EXPECT_EQ(block_binding(forward, kSsbo, "Rays"), GLint(b::kRays));
  EXPECT_EQ(block_binding(forward, GL_UNIFORM_BLOCK, "GridBlock"), grid_block);
  const gl::Program& raster = gl::layered_program("fdk/forward_project_raster.frag.glsl");
  EXPECT_EQ(block_binding(raster, kSsbo, "Rays"), GLint(b::kRays));
  EXPECT_EQ(block_binding(raster, GL_UNIFORM_BLOCK, "GridBlock"), grid_block);
  EXPECT_EQ(unit_of(raster, "u_volume"), GLint(b::kRayVolumeTexture));
}
