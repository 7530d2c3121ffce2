// Typed uniform handles (renderer/gl/uniform.hpp), passes kept beside their program
// (ShaderLibrary::get) and the per-pass fixed-function state (renderer/gl/pipeline_state.hpp).
#include <gtest/gtest.h>

#include <string>

#include "compute/core/error.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/gl/pipeline_state.hpp"
#include "renderer/gl/uniform.hpp"
#include "tests/support/gl_test.hpp"

using namespace tomo;

namespace {

const char* kEcho = R"(#version 450 core
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Out { float v[]; };
uniform int u_i;
uniform uint u_u;
uniform vec3 u_f3;
uniform ivec2 u_i2;
uniform dvec3 u_d3[2];
uniform float u_unused;  // declared, never read: the linker drops it
void main() {
  v[0] = float(u_i); v[1] = float(u_u);
  v[2] = u_f3.x; v[3] = u_f3.y; v[4] = u_f3.z;
  v[5] = float(u_i2.x); v[6] = float(u_i2.y);
  v[7] = float(u_d3[0].x); v[8] = float(u_d3[1].z);
}
)";

struct EchoPass {
  const gl::Program& program;
  gl::Uniform<int> i;
  gl::Uniform<unsigned> u;
  gl::Uniform<gl::Vec3f> f3;
  gl::Uniform<gl::Vec2i> i2;
  gl::Uniform<gl::Vec3d> d3;
  explicit EchoPass(const gl::Program& p)
      : program(p), i(p, "u_i"), u(p, "u_u"), f3(p, "u_f3"), i2(p, "u_i2"), d3(p, "u_d3") {}
};

}  // namespace

TEST(GlUniform, TypedHandlesWriteWithoutLookup) {
  test::gl_context();
  try {  // a driver message recorded by an earlier test (a shader meant to fail) is not ours
    TOMO_GL_CHECK((void)0);
  } catch (const std::exception&) {
  }
  const gl::Program p = gl::ShaderLibrary::build({{gl::Stage::Compute, kEcho}}, "echo");
  const EchoPass pass(p);
  pass.i.set(-7);
  pass.u.set(42u);
  pass.f3.set({1.5f, -2.f, 3.25f});
  pass.i2.set({9, -4});
  const double d[6] = {0.5, 0, 0, 0, 0, -8.0};
  pass.d3.set_array(d, 2);
  gl::Buffer out(9 * sizeof(float));
  out.bind_base(GL_SHADER_STORAGE_BUFFER, 0);
  p.dispatch(1);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  const auto v = out.read<float>();
  const float want[9] = {-7, 42, 1.5f, -2, 3.25f, 9, -4, 0.5f, -8};
  for (int k = 0; k < 9; ++k) EXPECT_EQ(v[k], want[k]) << "value " << k;
}

TEST(GlUniform, MisspeltNameThrowsNamingProgramAndUniform) {
  test::gl_context();
  const gl::Program p = gl::ShaderLibrary::build({{gl::Stage::Compute, kEcho}}, "echo");
  try {
    gl::Uniform<int> bad(p, "u_ii");
    FAIL() << "no throw";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'echo'"), std::string::npos) << what;
    EXPECT_NE(what.find("'u_ii'"), std::string::npos) << what;
  }
  // Declared but optimised out: an inactive handle, set() is a no-op as for GL's location -1.
  const gl::Uniform<float> unused(p, "u_unused");
  EXPECT_FALSE(unused.active());
  unused.set(1.0f);
  EXPECT_TRUE(gl::Uniform<int>(p, "u_i").active());
}

TEST(GlUniform, PassIsBuiltOncePerLinkedProgram) {
  test::gl_context();
  struct HalvePass {
    gl::Uniform<gl::Vec2i> src_size;
    explicit HalvePass(const gl::Program& p) : src_size(p, "u_src_size") {}
  };
  const HalvePass& a = gl::layered_pass<HalvePass>("common/halve_sum.frag.glsl");
  const HalvePass& b = gl::layered_pass<HalvePass>("common/halve_sum.frag.glsl");
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(a.src_size.location(), gl::layered_program("common/halve_sum.frag.glsl").uniform("u_src_size"));
}

TEST(GlPipelineState, ApplySetsEveryField) {
  test::gl_context();
  gl::apply({.blend = gl::Blend::Add, .depth_test = true, .cull_face = true, .scissor_test = true});
  EXPECT_TRUE(glIsEnabled(GL_BLEND));
  EXPECT_TRUE(glIsEnabled(GL_DEPTH_TEST));
  EXPECT_TRUE(glIsEnabled(GL_CULL_FACE));
  EXPECT_TRUE(glIsEnabled(GL_SCISSOR_TEST));
  GLint src = 0, dst = 0, eq = 0;
  glGetIntegerv(GL_BLEND_SRC_RGB, &src);
  glGetIntegerv(GL_BLEND_DST_ALPHA, &dst);
  glGetIntegerv(GL_BLEND_EQUATION_RGB, &eq);
  EXPECT_EQ(src, GL_ONE);
  EXPECT_EQ(dst, GL_ONE);
  EXPECT_EQ(eq, GL_FUNC_ADD);
  gl::apply(gl::PipelineState{});
  EXPECT_FALSE(glIsEnabled(GL_BLEND));
  EXPECT_FALSE(glIsEnabled(GL_DEPTH_TEST));
  EXPECT_FALSE(glIsEnabled(GL_CULL_FACE));
  EXPECT_FALSE(glIsEnabled(GL_SCISSOR_TEST));
}
