// The GL building blocks every problem uses, each against a CPU computation:
// a compute pass, RGBA32F additive blending of points into an FBO, layered rendering
// into a 2D-array texture, and the halving (mip-)reduction.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "renderer/gl/objects.hpp"
#include "renderer/gl/reduction.hpp"
#include "renderer/gl/shader_library.hpp"
#include "tests/support/gl_test.hpp"

using namespace tomo;

namespace {
std::vector<float> random_floats(std::size_t n, unsigned seed, float lo = -1.f, float hi = 1.f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}
}  // namespace

TEST(GlPasses, ComputeShaderSaxpyMatchesCpu) {
  test::gl_context();
  const std::size_t n = 100003;  // not a multiple of the work-group size
  auto x = random_floats(n, 1), y = random_floats(n, 2);
  gl::Buffer bx = gl::Buffer::from(x), by = gl::Buffer::from(y);
  auto prog = gl::ShaderLibrary::build({{gl::Stage::Compute, R"(#version 450 core
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) buffer Y { float y[]; };
uniform float u_a; uniform uint u_n;
void main() { uint i = gl_GlobalInvocationID.x; if (i < u_n) y[i] = u_a * x[i] + y[i]; }
)"}}, "saxpy");
  bx.bind_base(GL_SHADER_STORAGE_BUFFER, 0);
  by.bind_base(GL_SHADER_STORAGE_BUFFER, 1);
  prog.set("u_a", 2.5f);
  prog.set("u_n", static_cast<unsigned>(n));
  prog.dispatch(static_cast<int>(n));
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  auto out = by.read<float>();
  // float32 with or without FMA: within 2 ulp of the operands' magnitude.
  for (std::size_t i = 0; i < n; ++i) {
    double ref = 2.5 * double(x[i]) + double(y[i]);
    double tol = 2.4e-7 * (std::abs(2.5 * x[i]) + std::abs(y[i]));
    ASSERT_LE(std::abs(out[i] - ref), tol) << "element " << i;
  }
}

TEST(GlPasses, AdditiveBlendingOfPointsIntoRgba32f) {
  test::gl_context();
  const int w = 37, h = 23, points = 20000;
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> texel(0, w * h - 1);
  std::vector<float> packed;  // (texel index, value) pairs
  std::vector<double> ref(static_cast<std::size_t>(w * h) * 4, 0.0);
  for (int i = 0; i < points; ++i) {
    int t = texel(rng);
    float v = static_cast<float>(i % 7) * 0.25f;  // exact in float: sums are exact
    packed.insert(packed.end(), {static_cast<float>(t), v});
    ref[4 * t + 0] += 1;
    ref[4 * t + 1] += v;
    ref[4 * t + 2] += v * v;
  }
  gl::Buffer pts = gl::Buffer::from(packed);
  auto target = gl::Texture::create_2d(GL_RGBA32F, w, h);
  target.clear_zero();
  auto fbo = gl::Framebuffer::create();
  fbo.attach(GL_COLOR_ATTACHMENT0, target);
  fbo.set_draw_buffers(1);
  fbo.check_complete();
  auto prog = gl::ShaderLibrary::build(
      {{gl::Stage::Vertex, R"(#version 450 core
layout(std430, binding = 0) readonly buffer P { vec2 pts[]; };
uniform ivec2 u_size;
out float v_value;
void main() {
  int t = int(pts[gl_VertexID].x);
  vec2 c = (vec2(t % u_size.x, t / u_size.x) + 0.5) / vec2(u_size);
  gl_Position = vec4(c * 2.0 - 1.0, 0.0, 1.0);
  gl_PointSize = 1.0;
  v_value = pts[gl_VertexID].y;
})"},
       {gl::Stage::Fragment, R"(#version 450 core
in float v_value; out vec4 o;
void main() { o = vec4(1.0, v_value, v_value * v_value, 0.0); })"}},
      "blend_points");
  auto vao = gl::VertexArray::create();
  vao.bind();
  fbo.bind();
  pts.bind_base(GL_SHADER_STORAGE_BUFFER, 0);
  prog.use();
  prog.set("u_size", w, h);
  glViewport(0, 0, w, h);
  glEnable(GL_BLEND);
  glBlendEquation(GL_FUNC_ADD);
  glBlendFunc(GL_ONE, GL_ONE);
  TOMO_GL_CHECK(glDrawArrays(GL_POINTS, 0, points));
  glDisable(GL_BLEND);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  auto out = target.read_float(4);
  for (std::size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(out[i], static_cast<float>(ref[i])) << "component " << i;
}

TEST(GlPasses, LayeredRenderingFillsEach2DArrayLayer) {
  test::gl_context();
  const int w = 16, h = 8, layers = 12;
  auto arr = gl::Texture::create_2d_array(GL_RGBA32F, w, h, layers);
  arr.clear_zero();
  auto fbo = gl::Framebuffer::create();
  fbo.attach(GL_COLOR_ATTACHMENT0, arr);  // layered attachment
  fbo.set_draw_buffers(1);
  fbo.check_complete();
  const gl::Program& vs_fs = gl::shaders().program(
      {{gl::Stage::Vertex, "common/layered_triangle.vert.glsl"}, {gl::Stage::Fragment, "common/halve_sum.frag.glsl"}},
      {{"TOMO_VS_LAYER", "1"}});
  (void)vs_fs;  // compiled to prove the vertex-layer variant builds here
  auto fill = gl::ShaderLibrary::build(
      {{gl::Stage::Vertex, gl::shaders().preprocess("common/layered_triangle.vert.glsl", {{"TOMO_VS_LAYER", "1"}})},
       {gl::Stage::Fragment, R"(#version 450 core
flat in int v_layer; out vec4 o;
void main() { o = vec4(float(v_layer + 1), gl_FragCoord.x, gl_FragCoord.y, 0.0); })"}},
      "layer_fill");
  auto vao = gl::VertexArray::create();
  vao.bind();
  fbo.bind();
  fill.use();
  fill.set("u_first_layer", 2);
  glViewport(0, 0, w, h);
  TOMO_GL_CHECK(glDrawArraysInstanced(GL_TRIANGLES, 0, 3, layers - 2));
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  auto out = arr.read_float(4);
  for (int l = 0; l < layers; ++l)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        std::size_t i = 4 * (static_cast<std::size_t>(l) * w * h + static_cast<std::size_t>(y) * w + x);
        float want = l < 2 ? 0.f : static_cast<float>(l + 1);
        ASSERT_EQ(out[i], want) << "layer " << l << " texel " << x << "," << y;
        if (l >= 2) {
          ASSERT_EQ(out[i + 1], x + 0.5f);
        }
      }
}

TEST(GlPasses, HalvingReductionSumsEveryLayer) {
  test::gl_context();
  // Odd sizes check the edge handling of each halving step.
  for (auto [w, h] : {std::pair{64, 64}, std::pair{37, 21}}) {
    const int layers = 9;
    int levels = gl::reduction_levels(w, h);
    auto tex = gl::Texture::create_2d_array(GL_RGBA32F, w, h, layers, levels);
    auto data = random_floats(static_cast<std::size_t>(w) * h * layers * 4, 5 + w, 0.f, 1.f);
    tex.upload_float(data.data(), 4);
    gl::HalvingReducer reducer;
    reducer.reduce(tex);
    auto totals = gl::HalvingReducer::read_totals(tex);
    ASSERT_EQ(totals.size(), static_cast<std::size_t>(layers) * 4);
    for (int l = 0; l < layers; ++l)
      for (int c = 0; c < 4; ++c) {
        double ref = 0;
        for (int i = 0; i < w * h; ++i) ref += data[(static_cast<std::size_t>(l) * w * h + i) * 4 + c];
        EXPECT_NEAR(totals[4 * l + c], ref, 1e-5 * ref) << w << "x" << h << " layer " << l << " channel " << c;
      }
  }
}
