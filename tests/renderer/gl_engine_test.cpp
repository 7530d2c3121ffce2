// The engine helpers the GL backends share: capabilities read once with the context, the
// extension-aware availability every backend registers with, the layered-pass program and
// the std140 grid block of shaders/common/grid.glsl.
#include <gtest/gtest.h>

#include <string>

#include "compute/core/error.hpp"
#include "compute/core/volume.hpp"
#include "renderer/gl/grid_block.hpp"
#include "renderer/gl/objects.hpp"
#include "tests/support/gl_test.hpp"

using namespace tomo;

TEST(GlEngine, CapabilitiesAgreeWithExtensionsAndGl45Minimums) {
  const gl::ContextInfo& info = test::gl_context().info();
  const gl::Capabilities& c = info.caps;
  EXPECT_EQ(c.float_atomics, info.has("GL_NV_shader_atomic_float"));
  EXPECT_EQ(c.layer_from_vertex, info.has("GL_ARB_shader_viewport_layer_array"));
  EXPECT_EQ(c.subgroup, info.has("GL_KHR_shader_subgroup"));
  if (!c.subgroup) {
    EXPECT_EQ(c.subgroup_size, 0);
  }
  EXPECT_GE(c.max_3d_texture_size, 2048);       // GL 4.5 minimums
  EXPECT_GE(c.max_array_texture_layers, 2048);
  EXPECT_GE(c.max_framebuffer_layers, 2048);
  EXPECT_GE(c.max_texture_size, 16384);
  EXPECT_GE(c.max_framebuffer_width, 16384);
  EXPECT_GE(c.max_ssbo_block_size, 1ll << 27);
}

TEST(GlEngine, AvailabilityNamesTheMissingExtension) {
  test::gl_context();
  EXPECT_TRUE(gl::availability({}).ok);
  const Availability a = gl::availability({"GL_TOMO_no_such_extension"});
  EXPECT_FALSE(a.ok);
  EXPECT_NE(a.why.find("GL_TOMO_no_such_extension"), std::string::npos) << a.why;
  EXPECT_THROW(gl::require_extensions("test", {"GL_TOMO_no_such_extension"}), UnavailableError);
  EXPECT_NO_THROW(gl::require_extensions("test", {}));
}

TEST(GlEngine, LayeredProgramBuildsForThisContext) {
  test::gl_context();
  const gl::Program& p = gl::layered_program("common/halve_sum.frag.glsl");
  EXPECT_NE(p.id(), 0u);
  EXPECT_GE(p.uniform("u_first_layer"), 0);
}

TEST(GlEngine, GridBlockReachesShadersInStd140) {
  test::gl_context();
  Grid3 grid;
  grid.dims = {7, 5, 3};
  grid.voxel_mm = {0.5, 2.0, 3.0};
  grid.origin_mm = {-1.75, 4.0, 10.125};
  auto prog = gl::ShaderLibrary::build({{gl::Stage::Compute, R"(#version 450 core
layout(local_size_x = 1) in;
)" + gl::shaders().load("bindings/gl.glsl") + [] {
  std::string g = gl::shaders().load("common/grid.glsl");  // its #include inlined above
  return g.replace(g.find("#include"), std::string("#include \"bindings/gl.glsl\"").size(), "");
}() + R"(
layout(std430, binding = 0) buffer Out { float o[]; };
void main() {
  for (int a = 0; a < 3; ++a) {
    o[a] = u_grid_origin[a];
    o[3 + a] = u_grid_voxel[a];
    o[6 + a] = u_inv_voxel[a];
    o[9 + a] = float(u_dims[a]);
  }
})"}},
                                       "grid_block");
  gl::Buffer out(12 * sizeof(float));
  out.bind_base(GL_SHADER_STORAGE_BUFFER, 0);
  gl::GridBlock block;
  block.bind(grid);
  prog.use();
  prog.dispatch(1);
  TOMO_GL_CHECK(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));
  const auto v = out.read<float>();
  for (int a = 0; a < 3; ++a) {
    EXPECT_EQ(v[a], float(grid.origin_mm[a]));
    EXPECT_EQ(v[3 + a], float(grid.voxel_mm[a]));
    EXPECT_EQ(v[6 + a], float(1.0 / grid.voxel_mm[a]));
    EXPECT_EQ(v[9 + a], float(grid.dims[a]));
  }
}

// A texture beyond the driver's limits is one clear UnavailableError naming the
// sizes and the limit, not a bare GL_INVALID_VALUE.
TEST(GlEngine, TexturesBeyondTheLimitsAreRefusedWithTheLimit) {
  auto& ctx = tomo::test::gl_context();
  const int max = ctx.info().caps.max_texture_size, layers = ctx.info().caps.max_array_texture_layers;
  try {
    tomo::gl::Texture::create_2d_array(GL_R32F, max + 1, 4, 2);
    FAIL() << "accepted a texture wider than GL_MAX_TEXTURE_SIZE";
  } catch (const tomo::UnavailableError& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(max + 1) + "x4x2 2D array"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(std::to_string(max) + " texels a side"), std::string::npos) << e.what();
  }
  EXPECT_THROW(tomo::gl::Texture::create_2d_array(GL_R32F, 4, 4, layers + 1), tomo::UnavailableError);
  EXPECT_THROW(tomo::gl::Texture::create_3d(GL_R32F, 4, 4, ctx.info().caps.max_3d_texture_size + 1), tomo::UnavailableError);
  EXPECT_THROW(tomo::gl::Texture::create_2d(GL_R32F, 0, 4), tomo::UnavailableError);
  EXPECT_NO_THROW(tomo::gl::Texture::create_2d(GL_R32F, 4, 4));
}

// caps.max_loop_iterations: software GL (llvmpipe) cuts a shader's loops after about 65535
// iterations in one invocation, silently; other drivers run them out. Measured, not assumed.
TEST(GlEngine, LoopLimitIsWhatTheCapabilitiesSay) {
  auto& ctx = tomo::test::gl_context();
  const long long limit = ctx.info().caps.max_loop_iterations;
  const gl::Program& p = gl::shaders().compute("bench/loop_count.comp.glsl");
  auto count = [&](int n) {
    gl::Buffer out(sizeof(unsigned));
    out.bind_base(GL_SHADER_STORAGE_BUFFER, 0);
    p.use();
    p.set("u_n", n);
    p.dispatch(1);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    return out.read<unsigned>()[0];
  };
  EXPECT_EQ(count(60000), 60000u);  // within every driver's budget
  const unsigned beyond = count(200000);
  if (limit > 0)
    EXPECT_LT(beyond, 200000u) << "the driver ran a loop past the limit its capabilities declare";
  else
    EXPECT_EQ(beyond, 200000u) << ctx.info().gl_renderer << " cut a loop short but declares no limit";
}
